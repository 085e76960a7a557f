import { fileURLToPath } from "node:url";
import { describeLayoutCompatibility } from "@artifact-kit/fault-trials";
import { S3ArtifactService } from "../src/index.js";
import { dumpPrefix, restorePrefix } from "./support/dump.js";
import { freshBucket, newClient } from "./support/server.js";

// The fixture is what @artifact-kit/s3 0.1.0 wrote for fault-trials' writeLayoutScenario;
// the scope markers are what the list-scopes branch added to the same bucket, and the seals
// what a delete adds since a deletion seal decides who deleted (object-store's markers dialect).
describeLayoutCompatibility({
  fixture: fileURLToPath(new URL("./fixtures/layout-0.1.0.json", import.meta.url)),
  scopeMarkersFixture: fileURLToPath(
    new URL("./fixtures/scope-markers-list-scopes.json", import.meta.url),
  ),
  deletionSealsFixture: fileURLToPath(new URL("./fixtures/deletion-seals.json", import.meta.url)),
  newBucket: () => freshBucket(),
  open: (bucket, prefix) =>
    new S3ArtifactService({ client: newClient(), bucket: bucket as string, prefix }),
  dump: (bucket, prefix) => dumpPrefix(newClient(), bucket as string, prefix),
  restore: (bucket, prefix, dump) => restorePrefix(newClient(), bucket as string, prefix, dump),
});
