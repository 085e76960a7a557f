export { type AttachmentBounds, DEFAULT_ATTACHMENT_BOUNDS } from "./attach-bounds.js";
export {
  type AttachmentReply,
  type ResolvedAttachment,
  VerifiedLoadArtifactsTool,
} from "./attach-tool.js";
export {
  type ArtifactGrant,
  type AuthorizedToolBody,
  type ToolArtifacts,
  withArtifactAuthority,
} from "./authority.js";
export { runInInvocationScope } from "./binding.js";
export { type AdkArtifactVersion, type AdkBridgeOptions, toAdkArtifactService } from "./bridge.js";
export { CUSTOM_METADATA_KEY, PART_RECORD_KEY } from "./metadata.js";
export { type AdkArtifactEffect, ARTIFACT_EFFECTS_KEY, ArtifactScopePlugin } from "./plugin.js";
