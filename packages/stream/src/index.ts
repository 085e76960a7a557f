export type { BufferingOptions } from "./buffered.js";
export { ArtifactDownload, type OpenDownloadOptions, openDownload } from "./download.js";
export { DEFAULT_CHUNK_BYTES, MAX_CHUNK_BYTES } from "./negotiate.js";
export { ArtifactUpload, type OpenUploadOptions, openUpload } from "./upload.js";
