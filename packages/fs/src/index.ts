export {
  FS_DEFAULTS,
  type FsArtifactServiceOptions,
  fsCeilings,
} from "./config.js";
export { type ArtifactPaths, fsArtifactPaths } from "./layout.js";
export {
  FsArtifactService,
  MAX_METADATA_FILE_BYTES,
  type RepairOptions,
  type RepairReport,
} from "./service.js";
