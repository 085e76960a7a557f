import { describeArtifactService } from "@artifact-kit/core/conformance";
import { OBJECT_STORE_SCALE_LAWS } from "@artifact-kit/object-store/testing";
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
  omit: OBJECT_STORE_SCALE_LAWS,
  // Each law makes hundreds of HTTP requests: headroom for a loaded CI machine.
  testTimeoutMs: 600_000,
});
