// The implementer's entry point, `@artifact-kit/core/adapter`: the adapter template and
// the helpers adapters build on. Consumers need only the root export.

export { HighWaterCache } from "../high-water.js";
export {
  type IdempotentPayload,
  idempotentVersionDeleted,
  replayIdempotentPut,
} from "../idempotency.js";
export { highestUnderMark } from "../latest-window.js";
export * from "../name-key.js";
export * from "../order.js";
export * from "../request.js";
export { sameScope, scopeDigest, scopeKey, sha256Hex } from "../scope.js";
export {
  idAtLevel,
  pageLiveScopes,
  pageScopesWithNames,
  scopeAtLevel,
  scopePageOf,
} from "../scope-listing.js";
export { allSettledOrFirstFailure } from "../settle.js";
export * from "../stored-manifest.js";
export * from "../transfer/blocks.js";
export * from "../transfer/upload-sink.js";
export * from "../transfer/verified-source.js";
export {
  type ParsedDownload,
  type ParsedUpload,
  parseDownload,
  parseUpload,
  resolveRange,
} from "../transfer.js";
export {
  type ContentionPolicy,
  contentionPauseMs,
  DEFAULT_FIRST_PAUSE_MS,
  DEFAULT_MAX_PAUSE_MS,
  retryUnderContention,
} from "./contention.js";
export {
  type AdapterHooks,
  AdapterService,
  type ParsedPublication,
  type ServicePort,
  type StoredArtifact,
  type StoredDownload,
  servicePort,
} from "./template.js";
