import { fileURLToPath } from "node:url";
import { describeRaces } from "@artifact-kit/fault-trials";
import { GcsArtifactService } from "../src/index.js";
import { endpoint, freshBucket, newStorage } from "./support/emulator.js";

describeRaces({
  endpoint,
  newBucket: async () => (await freshBucket()).name,
  open: (bucket) => new GcsArtifactService({ bucket: newStorage().bucket(bucket) }),
  opener: fileURLToPath(new URL("./support/race-opener.mjs", import.meta.url)),
});
