import { describeArtifactService } from "@artifact-kit/core/conformance";
import type { ContainerClient } from "@azure/storage-blob";
import { beforeAll } from "vitest";
import { azureSubjects } from "../src/testing.js";
import { containerClient, freshContainer } from "./support/server.js";

// One container; each subject gets its own prefix (see src/testing.ts, shared with the matrix).
let container: ContainerClient;
beforeAll(async () => {
  container = await freshContainer();
});

describeArtifactService("azure (Azurite)", {
  ...azureSubjects(() => containerClient(container.containerName)),
  numRuns: 10,
  // The scale laws put 1,100+ names and versions through Azurite: minutes on a loaded machine.
  testTimeoutMs: 600_000,
});
