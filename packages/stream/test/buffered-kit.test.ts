import { describeArtifactService } from "@artifact-kit/core/conformance";
import { MemoryArtifactService } from "@artifact-kit/memory";
import { MiB } from "./helpers.js";
import { servedByBuffering } from "./plain-service.js";

// The artifact-service kit's transfer laws judge the buffering over memory (the fs subject,
// slower, is in buffered.test.ts). A file of its own: the mutation target "stream" runs it.
// The bounded subject puts the buffering under the adapter's quotas and small pages, so that
// the kit's bound, quota and full-quota retry laws run through buffered uploads too.
describeArtifactService("buffered transfer over memory", {
  create: async () => ({
    service: servedByBuffering(new MemoryArtifactService(), { maxBytes: 4 * MiB }),
  }),
  createBounded: async () => ({
    service: servedByBuffering(
      new MemoryArtifactService({
        maxPageLimit: 25,
        legacyListLimit: 30,
        maxArtifactBytes: 4096,
        maxScopeBytes: 16_384,
        maxTotalBytes: 32_768,
        maxScopeArtifacts: 40,
        maxTotalArtifacts: 100,
      }),
      { maxBytes: 4 * MiB },
    ),
  }),
  numRuns: 20,
});
