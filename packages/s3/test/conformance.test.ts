import { describeArtifactService } from "@artifact-kit/core/conformance";
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
  // The scale laws put 1,100+ names and versions through moto: minutes on a loaded machine.
  testTimeoutMs: 600_000,
});
