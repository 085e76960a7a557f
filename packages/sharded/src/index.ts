export { type FsShardOptions, fsShards } from "./fs.js";
export { memoryShards } from "./memory.js";
export {
  MAX_IDLE_SCOPE_TIMEOUT_MS,
  ROUTER_DEFAULTS,
  ROUTING_STRATEGIES,
  type RoutingStrategy,
  type ShardedArtifactServiceOptions,
} from "./options.js";
export {
  createArtifactRuntime,
  type DurableLocalOptions,
  RUNTIME_PROFILES,
  type RuntimeProfile,
} from "./profiles.js";
export { type RouterStatus, ShardedArtifactService } from "./service.js";
export { type Shard, type ShardFactory, shardRoot } from "./shard.js";
