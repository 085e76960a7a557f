export type { RepairOptions, RepairReport } from "@artifact-kit/object-store";
export type {
  MultipartCompletion,
  S3ArtifactServiceBounds,
  S3ArtifactServiceOptions,
} from "./config.js";
export { S3_DEFAULTS } from "./config.js";
export { S3ArtifactService } from "./service.js";
