import { fileURLToPath } from "node:url";
import { describeServerKill } from "@artifact-kit/fault-trials";
import { S3ArtifactService } from "../src/index.js";
import { freshBucket, newClient } from "./support/server.js";

// moto of the test's own SIGKILLed under calls in flight (the suite says what is checked).
describeServerKill({
  server: "moto",
  script: fileURLToPath(new URL("../scripts/start-moto.sh", import.meta.url)),
  stateDirVar: "MOTO_STATE_DIR",
  endpointVar: "S3_ENDPOINT",
  pidVar: "MOTO_PID",
  async open(endpoint) {
    const client = newClient(endpoint);
    const bucket = await freshBucket(client);
    return new S3ArtifactService({ client, bucket, partBytes: 5 * 1024 * 1024 });
  },
});
