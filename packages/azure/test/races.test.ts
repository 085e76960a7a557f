import { fileURLToPath } from "node:url";
import { describeRaces } from "@artifact-kit/fault-trials";
import { AzureArtifactService } from "../src/index.js";
import { connectionString, containerClient, freshContainer } from "./support/server.js";

describeRaces({
  // The worker processes reach the service by its connection string (see race-opener.mjs).
  endpoint: connectionString,
  newBucket: async () => (await freshContainer()).containerName,
  open: (container) => new AzureArtifactService({ container: containerClient(container) }),
  opener: fileURLToPath(new URL("./support/race-opener.mjs", import.meta.url)),
});
