import { randomUUID } from "node:crypto";
import {
  BUCKET_LISTING_LAWS,
  type FilledPrefix,
  fillListingPrefix,
} from "@artifact-kit/object-store/testing";
import { beforeAll, describe, it } from "vitest";
import { AzureBucket } from "../src/azure-bucket.js";
import { freshContainer } from "./support/server.js";

// The bucket contract's listing laws against Azurite: its pages, continuation tokens and key
// order, as the protocol's listings meet them (its own scale laws run over a memory bucket).
describe("bucket listing laws: Azure (Azurite)", () => {
  let bucket: AzureBucket;
  let filled: FilledPrefix;
  beforeAll(async () => {
    bucket = new AzureBucket(await freshContainer(), 8, 4 * 2 ** 20);
    filled = await fillListingPrefix(bucket, `listing-${randomUUID()}/`);
  }, 600_000);
  for (const law of BUCKET_LISTING_LAWS)
    it(law.name, { timeout: 600_000 }, () => law.run(bucket, filled));
});
