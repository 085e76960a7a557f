export {
  GCS_DEFAULTS,
  type GcsArtifactServiceBounds,
  type GcsArtifactServiceOptions,
  MAX_PREFIX_BYTES,
} from "./config.js";
export { type ArtifactRange, GcsArtifactService, type GetRangeOptions } from "./service.js";
