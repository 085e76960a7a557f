export {
  type ArtifactGrant,
  type AuthorizedToolBody,
  type ToolArtifacts,
  withArtifactAuthority,
} from "./authority.js";
export { runInInvocationScope } from "./binding.js";
export { type AdkArtifactVersion, type AdkBridgeOptions, toAdkArtifactService } from "./bridge.js";
export { CUSTOM_METADATA_KEY, PART_RECORD_KEY } from "./metadata.js";
export { ARTIFACT_EFFECTS_KEY, type AdkArtifactEffect, ArtifactScopePlugin } from "./plugin.js";
