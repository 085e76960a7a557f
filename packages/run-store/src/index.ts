export type {
  RunArtifact,
  RunContent,
  RunStore,
  RunStoreBounds,
  RunStoreBoundsOptions,
} from "@artifact-kit/core";
export { RUN_STORE_DEFAULTS } from "./bounds.js";
export { InMemoryRunStore, type InMemoryRunStoreOptions } from "./memory-store.js";
export {
  ArtifactServiceRunStore,
  type ArtifactServiceRunStoreOptions,
  DEFAULT_NAMESPACE,
} from "./service-store.js";
