import type { ArtifactService } from "@artifact-kit/core";
import type { ArtifactServiceConformanceOptions } from "@artifact-kit/core/conformance";
import type { MemoryArtifactServiceOptions } from "@artifact-kit/memory";

/** fast-check runs per property in the matrix; the mutant tests use the same settings. */
export const MATRIX_RUNS = Object.freeze({ memory: 100, fs: 30, runStore: 50 });

/** Memory quotas small enough for the kit to drive every bound to its edge. */
export const SMALL_MEMORY_QUOTAS: MemoryArtifactServiceOptions = {
  maxArtifactBytes: 4096,
  maxScopeBytes: 16_384,
  maxTotalBytes: 32_768,
  maxScopeArtifacts: 40,
  maxTotalArtifacts: 100,
  maxPageLimit: 25,
  legacyListLimit: 30,
};

/** The kit's options for a memory-backed service built by `make`. */
export function memorySubjects(
  make: (options?: MemoryArtifactServiceOptions) => ArtifactService,
): Pick<ArtifactServiceConformanceOptions, "create" | "createBounded"> {
  return {
    create: async () => ({ service: make() }),
    createBounded: async () => ({ service: make(SMALL_MEMORY_QUOTAS) }),
  };
}
