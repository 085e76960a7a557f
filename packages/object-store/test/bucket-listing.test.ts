import { beforeAll, describe, it } from "vitest";
import { BUCKET_LISTING_LAWS, type FilledPrefix, fillListingPrefix } from "../src/testing.js";
import { MemoryBucket } from "./support/memory-bucket.js";

// The laws the real buckets run against their servers, held by the protocol's own bucket:
// the laws are right, and its 4-key pages are what the protocol's scale laws run over.
describe("bucket listing laws: the memory bucket", () => {
  const bucket = new MemoryBucket("body", false, false);
  let filled: FilledPrefix;
  beforeAll(async () => {
    filled = await fillListingPrefix(bucket, "listing/");
  });
  for (const law of BUCKET_LISTING_LAWS) it(law.name, () => law.run(bucket, filled));
});
