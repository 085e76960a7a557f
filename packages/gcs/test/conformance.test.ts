import { describeArtifactService } from "@artifact-kit/core/conformance";
import { OBJECT_STORE_SCALE_LAWS } from "@artifact-kit/object-store/testing";
import type { Bucket } from "@google-cloud/storage";
import { beforeAll } from "vitest";
import { gcsSubjects } from "../src/testing.js";
import { freshBucket, newStorage } from "./support/emulator.js";

// One bucket; each subject gets its own prefix, and `reopen` is a new instance (with a new
// client) on the same bucket and prefix, as another host would be.
let bucket: Bucket;
beforeAll(async () => {
  bucket = await freshBucket();
});

describeArtifactService("gcs (fake-gcs-server)", {
  ...gcsSubjects(() => newStorage().bucket(bucket.name)),
  numRuns: 10,
  omit: OBJECT_STORE_SCALE_LAWS,
  // Each law makes hundreds of HTTP requests: headroom for a loaded CI machine.
  testTimeoutMs: 600_000,
});
