export { toAdkArtifactService } from "./bridge.js";
export { CUSTOM_METADATA_KEY, PART_RECORD_KEY } from "./metadata.js";
