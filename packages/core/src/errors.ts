/** Every stable error code an artifact-kit service may raise. */
export const ARTIFACT_ERROR_CODES = [
  "invalid_argument",
  "not_found",
  "artifact_too_large",
  "quota_exceeded",
  "timeout",
  "aborted",
  "closed",
  "result_limit_exceeded",
  "corrupt_artifact",
  "capacity_reached",
  "max_active_scopes_reached",
  "overloaded",
  "unsupported_transfer",
  "invalid_service_reply",
  "capability_denied",
  "effect_pending_reconciliation",
  "unavailable",
] as const;

export type ArtifactErrorCode = (typeof ARTIFACT_ERROR_CODES)[number];

/** Structured facts about a failure: `field` for invalid_argument, `limit` for quota_exceeded, ... */
export type ArtifactErrorDetail = Readonly<Record<string, string | number | boolean>>;

export interface ArtifactErrorOptions {
  detail?: ArtifactErrorDetail;
  cause?: unknown;
}

/** The one error class of artifact-kit: branch on `code`, never on `message`. */
export class ArtifactError extends Error {
  override readonly name = "ArtifactError";
  readonly code: ArtifactErrorCode;
  readonly detail: ArtifactErrorDetail;

  constructor(code: ArtifactErrorCode, message: string, options: ArtifactErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.detail = Object.freeze({ ...options.detail });
  }
}

/** True when `error` is an ArtifactError, optionally with the given code. */
export function isArtifactError(error: unknown, code?: ArtifactErrorCode): error is ArtifactError {
  return error instanceof ArtifactError && (code === undefined || error.code === code);
}

export function invalidArgument(field: string, message: string): ArtifactError {
  return new ArtifactError("invalid_argument", `${field}: ${message}`, { detail: { field } });
}

export function notFound(what: string, detail?: ArtifactErrorDetail): ArtifactError {
  return new ArtifactError(
    "not_found",
    `${what} not found`,
    detail === undefined ? {} : { detail },
  );
}

export function closedError(): ArtifactError {
  return new ArtifactError("closed", "the artifact service is closed");
}

/**
 * `maxScopeBytes` -> `max_scope_bytes`: the `detail.limit` of every bound error, derived one
 * way from the bound's name as `capabilities().quotas.bounds` spells it.
 */
export function quotaLimitCode(boundName: string): string {
  return boundName.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/** `detail` of an error raised by a named bound: `{ limit, bound, ...extra }`. */
function boundDetail(
  boundName: string,
  bound: number,
  extra?: ArtifactErrorDetail,
): ArtifactErrorDetail {
  return { ...extra, limit: quotaLimitCode(boundName), bound };
}

/** A configured quota (bytes or counts) would be exceeded; `boundName` as in capabilities(). */
export function quotaExceeded(boundName: string, bound: number, message: string): ArtifactError {
  return new ArtifactError("quota_exceeded", message, {
    detail: boundDetail(boundName, bound),
  });
}

/** Throws artifact_too_large when `size` exceeds `bound` (default bound: `maxArtifactBytes`). */
export function checkArtifactSize(
  size: number,
  maxArtifactBytes: number,
  boundName = "maxArtifactBytes",
): void {
  if (size > maxArtifactBytes) throw artifactTooLarge(size, maxArtifactBytes, boundName);
}

export function artifactTooLarge(
  size: number | undefined,
  bound: number,
  boundName = "maxArtifactBytes",
): ArtifactError {
  const what = size === undefined ? "the artifact" : `artifact of ${size} bytes`;
  return new ArtifactError("artifact_too_large", `${what} exceeds ${boundName} (${bound} bytes)`, {
    detail: boundDetail(boundName, bound),
  });
}

/** A lifetime ceiling (scopes, names or versions a store can ever hold) is reached. */
export function capacityReached(
  kind: "scope" | "name" | "version",
  boundName: string,
  bound: number,
): ArtifactError {
  return new ArtifactError(
    "capacity_reached",
    `the store's lifetime ceiling of ${bound} ${kind}s (${boundName}) is reached`,
    { detail: boundDetail(boundName, bound, { kind }) },
  );
}

/** The legacy whole-scope listing would exceed its bound; page with listNames/listVersions. */
export function resultLimitExceeded(boundName: string, bound: number): ArtifactError {
  return new ArtifactError(
    "result_limit_exceeded",
    `the result holds more than ${boundName} (${bound}) items; use listNames and listVersions`,
    { detail: boundDetail(boundName, bound) },
  );
}

/** Stored bytes or records do not match what was recorded for them. */
export function corruptArtifact(
  message: string,
  detail?: ArtifactErrorDetail,
  cause?: unknown,
): ArtifactError {
  return new ArtifactError("corrupt_artifact", message, {
    ...(detail === undefined ? {} : { detail }),
    ...(cause === undefined ? {} : { cause }),
  });
}

/** The adapter gave up under contention or load; the request may be retried. */
export function overloaded(message: string, boundName: string, bound: number): ArtifactError {
  return new ArtifactError("overloaded", message, { detail: boundDetail(boundName, bound) });
}

/** An operation outside what a capability, a bound scope or a caller was granted. */
export function capabilityDenied(message: string, detail?: ArtifactErrorDetail): ArtifactError {
  return new ArtifactError("capability_denied", message, detail === undefined ? {} : { detail });
}

/** A wrapped service answered with a record that does not match the request. */
export function invalidServiceReply(message: string, cause?: unknown): ArtifactError {
  return new ArtifactError("invalid_service_reply", message, cause === undefined ? {} : { cause });
}

export function unsupportedTransfer(message: string): ArtifactError {
  return new ArtifactError("unsupported_transfer", message);
}

/** The backend failed; `cause` keeps its own error. */
export function unavailable(message: string, cause?: unknown): ArtifactError {
  return new ArtifactError("unavailable", message, cause === undefined ? {} : { cause });
}

/**
 * An effect may have happened (an artifact written or deleted) but could not be recorded as
 * committed; a reconciler will settle it. Never means "rolled back".
 */
export function effectPendingReconciliation(
  effectId: string,
  message: string,
  cause?: unknown,
): ArtifactError {
  return new ArtifactError("effect_pending_reconciliation", message, {
    detail: { effectId },
    ...(cause === undefined ? {} : { cause }),
  });
}

/** Wraps a backend failure that is not already an ArtifactError as `unavailable`. */
export function asArtifactError(error: unknown, operation: string): ArtifactError {
  if (error instanceof ArtifactError) return error;
  return unavailable(`${operation} failed: ${reasonOf(error)}`, error);
}

/**
 * What a failure says, never empty: some arrive without a message (Node's AggregateError
 * when every address of a host refused, an SDK's error for a reply it could not parse), and
 * "failed: " alone tells an operator nothing. Then its code, its parts' messages or its name.
 */
function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.message) return error.message;
  const parts = error instanceof AggregateError ? error.errors.map(reasonOf).join("; ") : "";
  const code = (error as { code?: unknown }).code;
  const status = (error as { statusCode?: unknown }).statusCode;
  return (
    [
      typeof code === "string" ? code : "",
      typeof status === "number" ? `status ${status}` : "",
      parts,
    ]
      .filter(Boolean)
      .join(", ") || error.name
  );
}
