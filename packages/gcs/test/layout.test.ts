import { fileURLToPath } from "node:url";
import { describeLayoutCompatibility } from "@artifact-kit/fault-trials";
import type { Bucket } from "@google-cloud/storage";
import { GcsArtifactService } from "../src/index.js";
import { dumpPrefix, restorePrefix } from "./support/dump.js";
import { freshBucket } from "./support/emulator.js";

// The fixture is what @artifact-kit/gcs 0.1.0 wrote for fault-trials' writeLayoutScenario.
describeLayoutCompatibility({
  fixture: fileURLToPath(new URL("./fixtures/layout-0.1.0.json", import.meta.url)),
  newBucket: () => freshBucket(),
  open: (bucket, prefix) => new GcsArtifactService({ bucket: bucket as Bucket, prefix }),
  dump: (bucket, prefix) => dumpPrefix(bucket as Bucket, prefix),
  restore: (bucket, prefix, dump) => restorePrefix(bucket as Bucket, prefix, dump),
});
