export {
  FS_DEFAULTS,
  type FsArtifactServiceOptions,
  fsCeilings,
} from "./config.js";
export type { FsDurability } from "./io.js";
export { type ArtifactPaths, fsArtifactPaths } from "./layout.js";
export type { RepairOptions, RepairReport } from "./repair.js";
export { FsArtifactService } from "./service.js";
export { MAX_METADATA_FILE_BYTES } from "./version-file.js";
export { fsPayloadLocation } from "./version-reads.js";
