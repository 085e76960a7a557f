import { randomUUID } from "node:crypto";
import {
  BUCKET_LISTING_LAWS,
  type FilledPrefix,
  fillListingPrefix,
} from "@artifact-kit/object-store/testing";
import { beforeAll, describe, it } from "vitest";
import { GcsBucket } from "../src/bucket-client.js";
import { freshBucket } from "./support/emulator.js";

// The bucket contract's listing laws against fake-gcs-server: its pages, page tokens, offsets
// and key order, as the protocol's listings meet them (its own scale laws run over a memory bucket).
describe("bucket listing laws: GCS (fake-gcs-server)", () => {
  let bucket: GcsBucket;
  let filled: FilledPrefix;
  beforeAll(async () => {
    bucket = new GcsBucket(await freshBucket(), 8, 60_000);
    filled = await fillListingPrefix(bucket, `listing-${randomUUID()}/`);
  }, 600_000);
  for (const law of BUCKET_LISTING_LAWS)
    it(law.name, { timeout: 600_000 }, () => law.run(bucket, filled));
});
