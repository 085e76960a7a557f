export type { RepairOptions, RepairReport } from "@artifact-kit/object-store";
export { MAX_PREFIX_BYTES } from "@artifact-kit/object-store";
export {
  GCS_DEFAULTS,
  type GcsArtifactServiceBounds,
  type GcsArtifactServiceOptions,
} from "./config.js";
export { GcsArtifactService } from "./service.js";
