import { randomUUID } from "node:crypto";
import {
  BUCKET_LISTING_LAWS,
  type FilledPrefix,
  fillListingPrefix,
} from "@artifact-kit/object-store/testing";
import { beforeAll, describe, it } from "vitest";
import { S3Bucket } from "../src/bucket-client.js";
import { freshBucket, newClient } from "./support/server.js";

// The bucket contract's listing laws against moto: its pages, continuation tokens and key
// order, as the protocol's listings meet them (its own scale laws run over a memory bucket).
describe("bucket listing laws: S3 (moto)", () => {
  const client = newClient();
  let bucket: S3Bucket;
  let filled: FilledPrefix;
  beforeAll(async () => {
    bucket = new S3Bucket(client, await freshBucket(client), 8, {
      partBytes: 5 * 2 ** 20,
      completion: "create-only",
    });
    filled = await fillListingPrefix(bucket, `listing-${randomUUID()}/`);
  }, 600_000);
  for (const law of BUCKET_LISTING_LAWS)
    it(law.name, { timeout: 600_000 }, () => law.run(bucket, filled));
});
