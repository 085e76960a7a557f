import type { ArtifactService } from "@artifact-kit/core";
import type { ArtifactServiceConformanceOptions } from "@artifact-kit/core/conformance";
import type { MemoryArtifactServiceOptions } from "./config.js";
import { MemoryArtifactService } from "./service.js";

/** Memory quotas small enough for the conformance kit to drive every bound to its edge. */
const SMALL_MEMORY_QUOTAS: Readonly<MemoryArtifactServiceOptions> = Object.freeze({
  maxArtifactBytes: 4096,
  maxScopeBytes: 16_384,
  maxTotalBytes: 32_768,
  maxScopeArtifacts: 40,
  maxTotalArtifacts: 100,
  maxPageLimit: 25,
  legacyListLimit: 30,
});

/**
 * The conformance kit's subjects for a memory-backed service: a fresh store per subject
 * and a bounded one with SMALL_MEMORY_QUOTAS. `make` builds the service (by default the
 * memory adapter itself; a router or a wrapper over memory passes its own).
 */
export function memorySubjects(
  make: (options?: MemoryArtifactServiceOptions) => ArtifactService = (options) =>
    new MemoryArtifactService(options),
): Pick<ArtifactServiceConformanceOptions, "create" | "createBounded"> {
  return {
    create: async () => ({ service: make() }),
    createBounded: async () => ({ service: make({ ...SMALL_MEMORY_QUOTAS }) }),
  };
}
