import { invalidArgument, validateOptionKeys } from "@artifact-kit/core";
import type { MemoryArtifactServiceOptions } from "@artifact-kit/memory";
import { type FsShardOptions, fsShards } from "./fs.js";
import { memoryShards } from "./memory.js";
import type { ShardedArtifactServiceOptions } from "./options.js";
import { ShardedArtifactService } from "./service.js";

/** Runtime profiles: a router and its adapter, configured for one way of running. */
export type RuntimeProfile = "ephemeral_local" | "durable_local";

export const RUNTIME_PROFILES: readonly RuntimeProfile[] = Object.freeze([
  "ephemeral_local",
  "durable_local",
]);

export interface DurableLocalOptions extends Omit<ShardedArtifactServiceOptions, "strategy"> {
  /** Absolute path; created if missing. Each scope's data lives in `root/shards/<sha256>`. */
  root: string;
  /** Options of every fs worker (not `root`). */
  fs?: FsShardOptions;
}

const DURABLE_LOCAL_KEYS = [
  "root",
  "fs",
  "maxActiveScopes",
  "maxRouterQueue",
  "idleScopeTimeoutMs",
  "maxConcurrentOpens",
];

/**
 * `ephemeral_local`: one shared memory adapter for every scope, so its quotas are one
 * global budget; the options are the memory adapter's.
 */
export async function createArtifactRuntime(
  profile: "ephemeral_local",
  options?: MemoryArtifactServiceOptions,
): Promise<ShardedArtifactService>;
/**
 * `durable_local`: one fs worker per exact scope under an absolute `root`; idle workers
 * are reclaimed at `maxActiveScopes` and reopen their data on the next call.
 */
export async function createArtifactRuntime(
  profile: "durable_local",
  options: DurableLocalOptions,
): Promise<ShardedArtifactService>;
export async function createArtifactRuntime(
  profile: RuntimeProfile,
  options?: unknown,
): Promise<ShardedArtifactService> {
  switch (profile) {
    case "ephemeral_local":
      return new ShardedArtifactService(
        memoryShards(options as MemoryArtifactServiceOptions | undefined),
        { strategy: "shared" },
      );
    case "durable_local": {
      const { root, fs, ...router } = validateOptionKeys(
        options,
        DURABLE_LOCAL_KEYS,
        "durableLocalOptions",
      ) as Partial<DurableLocalOptions>;
      const shards = await fsShards(root as string, fs);
      return new ShardedArtifactService(shards, { ...router, strategy: "exact_scope" });
    }
    default:
      throw invalidArgument("profile", `must be one of ${RUNTIME_PROFILES.join(", ")}`);
  }
}
