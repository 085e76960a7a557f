export {
  GCS_DEFAULTS,
  type GcsArtifactServiceBounds,
  type GcsArtifactServiceOptions,
  MAX_PREFIX_BYTES,
} from "./config.js";
export { GcsArtifactService } from "./service.js";
