export { MEMORY_DEFAULTS, type MemoryArtifactServiceOptions } from "./config.js";
export { MemoryArtifactService } from "./service.js";
