import { describeArtifactService } from "@artifact-kit/core/conformance";
import { OBJECT_STORE_SCALE_LAWS } from "@artifact-kit/object-store/testing";
import { beforeAll } from "vitest";
import { s3Subjects } from "../src/testing.js";
import { freshBucket, newClient } from "./support/server.js";

// One bucket; each subject gets its own prefix (see src/testing.ts, shared with the matrix).
let bucket: string;
beforeAll(async () => {
  bucket = await freshBucket(newClient());
});

describeArtifactService("s3 (moto)", {
  ...s3Subjects(newClient, () => bucket),
  numRuns: 10,
  omit: OBJECT_STORE_SCALE_LAWS,
  // Each law makes hundreds of HTTP requests: headroom for a loaded CI machine.
  testTimeoutMs: 600_000,
});
