export {
  ARTIFACT_OPERATIONS,
  type ArtifactAttachment,
  type ArtifactEffect,
  type ArtifactOperation,
  type BindOptions,
  BoundArtifacts,
  bindArtifacts,
} from "./bind.js";
export { type CapabilitiesInput, defineCapabilities } from "./capabilities.js";
export { Deadline } from "./deadline.js";
export * from "./errors.js";
export {
  type IdempotentPayload,
  idempotentVersionDeleted,
  replayIdempotentPut,
} from "./idempotency.js";
export * from "./limits.js";
export {
  compareNumbers,
  compareUtf8,
  indexAfter,
  indexFrom,
  namePage,
  namePageStart,
  type Page,
  pageAfter,
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
export { sameScope, scopeDigest, scopeFromKey, scopeKey, sha256Hex } from "./scope.js";
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
