// The consumer's entry point: the contract, validation, errors, scoped capabilities and
// the run-store contract. What adapters build on is on `@artifact-kit/core/adapter`.
export {
  ARTIFACT_OPERATIONS,
  type ArtifactAttachment,
  type ArtifactEffect,
  type ArtifactOperation,
  type BindOptions,
  BoundArtifacts,
  bindArtifacts,
  type EffectListener,
  type GrantedArtifacts,
} from "./bind.js";
export { type CapabilitiesInput, defineCapabilities } from "./capabilities.js";
export { Deadline, parseTimeoutMs } from "./deadline.js";
export * from "./download-url.js";
export * from "./errors.js";
export * from "./limits.js";
export { compareUtf8 } from "./order.js";
export { allNames, allScopes, allVersions } from "./pages.js";
export {
  checkArtifactReply,
  checkMetaReply,
  checkNamePageReply,
  checkScopePageReply,
  checkVersionPageReply,
} from "./reply.js";
export type { ParsedListScopes, ScopeLevel } from "./request.js";
export * from "./run-store.js";
export { scopeDigest, scopeKey, sha256Hex } from "./scope.js";
export { TRANSFER_BLOCK_BYTES } from "./transfer/blocks.js";
export * from "./transfer/contract.js";
export type * from "./types.js";
export {
  decodeUtf8,
  utf8ByteLength,
  validateData,
  validateMetadata,
  validateMimeType,
  validateName,
  validateNamePrefix,
  validateOptionKeys,
  validatePositiveInteger,
  validateScope,
  validateText,
} from "./validate.js";
