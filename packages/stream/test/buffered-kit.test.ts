import { describeArtifactService } from "@artifact-kit/core/conformance";
import { MemoryArtifactService } from "@artifact-kit/memory";
import { MiB } from "./helpers.js";
import { servedByBuffering } from "./plain-service.js";

// The artifact-service kit's transfer laws judge the buffering over memory (the fs subject,
// slower, is in buffered.test.ts). A file of its own: the mutation target "stream" runs it.
describeArtifactService("buffered transfer over memory", {
  create: async () => ({
    service: servedByBuffering(new MemoryArtifactService(), { maxBytes: 4 * MiB }),
  }),
  numRuns: 20,
});
