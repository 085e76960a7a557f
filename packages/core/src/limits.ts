/** Validation limits shared by every adapter; reported by `capabilities().limits`. */
export interface ValidationLimits {
  readonly maxScopeIdBytes: number;
  readonly maxNameBytes: number;
  readonly maxMimeTypeBytes: number;
  readonly maxMetadataBytes: number;
  readonly maxMetadataEntries: number;
  readonly maxMetadataDepth: number;
  readonly maxIdempotencyKeyBytes: number;
  readonly minTimeoutMs: number;
  readonly maxTimeoutMs: number;
}

export const MAX_SCOPE_ID_BYTES = 256;
export const MAX_NAME_BYTES = 1024;
export const MAX_MIME_TYPE_BYTES = 255;
export const MAX_METADATA_BYTES = 16_384;
export const MAX_METADATA_ENTRIES = 128;
export const MAX_METADATA_DEPTH = 8;
export const MAX_IDEMPOTENCY_KEY_BYTES = 256;
export const MIN_TIMEOUT_MS = 1;
export const MAX_TIMEOUT_MS = 300_000;
export const DEFAULT_MIME_TYPE = "application/octet-stream";

export const VALIDATION_LIMITS: ValidationLimits = Object.freeze({
  maxScopeIdBytes: MAX_SCOPE_ID_BYTES,
  maxNameBytes: MAX_NAME_BYTES,
  maxMimeTypeBytes: MAX_MIME_TYPE_BYTES,
  maxMetadataBytes: MAX_METADATA_BYTES,
  maxMetadataEntries: MAX_METADATA_ENTRIES,
  maxMetadataDepth: MAX_METADATA_DEPTH,
  maxIdempotencyKeyBytes: MAX_IDEMPOTENCY_KEY_BYTES,
  minTimeoutMs: MIN_TIMEOUT_MS,
  maxTimeoutMs: MAX_TIMEOUT_MS,
});
