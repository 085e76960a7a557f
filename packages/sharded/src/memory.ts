import { MemoryArtifactService, type MemoryArtifactServiceOptions } from "@artifact-kit/memory";
import type { ShardFactory } from "./shard.js";

/** Workers that are memory adapters, each enforcing its own copy of `options`' quotas. */
export function memoryShards(options?: MemoryArtifactServiceOptions): ShardFactory {
  // Building one instance validates the options now, not at the first cold route.
  const template = new MemoryArtifactService(options);
  return {
    capabilities: template.capabilities(),
    open: () => new MemoryArtifactService(options),
  };
}
