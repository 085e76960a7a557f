import { fileURLToPath } from "node:url";
import { describeRaces } from "@artifact-kit/fault-trials";
import { S3ArtifactService } from "../src/index.js";
import { endpoint, freshBucket, newClient } from "./support/server.js";

describeRaces({
  endpoint,
  newBucket: () => freshBucket(),
  open: (bucket) => new S3ArtifactService({ client: newClient(), bucket }),
  opener: fileURLToPath(new URL("./support/race-opener.mjs", import.meta.url)),
});
