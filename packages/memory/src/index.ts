export { MEMORY_DEFAULTS, type MemoryArtifactServiceOptions } from "./config.js";
export { MemoryArtifactService, type MemoryStatus } from "./service.js";
