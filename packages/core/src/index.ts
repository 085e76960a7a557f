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
export { Deadline } from "./deadline.js";
export * from "./errors.js";
export { HighWaterCache } from "./high-water.js";
export {
  type IdempotentPayload,
  idempotentVersionDeleted,
  replayIdempotentPut,
} from "./idempotency.js";
export { highestUnderMark } from "./latest-window.js";
export * from "./limits.js";
export {
  decodeBase32Hex,
  encodeBase32Hex,
  FULL_KEY_MAX_NAME_BYTES,
  groupOfKey,
  type KeyListingPage,
  type KeyListingRequest,
  keyPrefixOf,
  keyStartAfter,
  keyStartFrom,
  type NameKey,
  nameKey,
  nameOfFullKey,
  namePageOfKeys,
} from "./name-key.js";
export {
  compareNumbers,
  compareUtf8,
  indexAfter,
  indexFrom,
  namePage,
  namePageStart,
  type Page,
  pageAfter,
  prefixUpperBound,
  resolvePageLimit,
} from "./order.js";
export { allNames, allVersions } from "./pages.js";
export {
  checkArtifactReply,
  checkMetaReply,
  checkNamePageReply,
  checkVersionPageReply,
} from "./reply.js";
export * from "./request.js";
export * from "./run-store.js";
export { sameScope, scopeDigest, scopeKey, sha256Hex } from "./scope.js";
export {
  type ManifestExpectation,
  metaOfManifest,
  parseStoredManifest,
  type StoredManifest,
  storedManifestJson,
} from "./stored-manifest.js";
export * from "./transfer.js";
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
