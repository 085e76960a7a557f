export {
  FS_DEFAULTS,
  type FsArtifactServiceOptions,
  fsCeilings,
} from "./config.js";
export { type ArtifactPaths, fsArtifactPaths } from "./layout.js";
export type { RepairOptions, RepairReport } from "./repair.js";
export { FsArtifactService, MAX_METADATA_FILE_BYTES } from "./service.js";
