import { describeArtifactService } from "@artifact-kit/core/conformance";
import { MemoryArtifactService } from "@artifact-kit/memory";
import { memorySubjects } from "./adapters.js";

// Every adapter in the workspace, through the same kit. Durable adapters add `reopen`.
describeArtifactService("memory", {
  ...memorySubjects((options) => new MemoryArtifactService(options)),
  numRuns: 200,
});
