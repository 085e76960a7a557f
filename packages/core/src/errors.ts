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

export function notFound(what: string): ArtifactError {
  return new ArtifactError("not_found", `${what} not found`);
}

export function closedError(): ArtifactError {
  return new ArtifactError("closed", "the artifact service is closed");
}

export function quotaExceeded(limit: string, bound: number, message: string): ArtifactError {
  return new ArtifactError("quota_exceeded", message, { detail: { limit, bound } });
}

/** Throws artifact_too_large when `size` exceeds the adapter's `maxArtifactBytes`. */
export function checkArtifactSize(size: number, maxArtifactBytes: number): void {
  if (size > maxArtifactBytes) {
    throw new ArtifactError(
      "artifact_too_large",
      `artifact of ${size} bytes exceeds maxArtifactBytes`,
      {
        detail: { limit: "max_artifact_bytes", bound: maxArtifactBytes },
      },
    );
  }
}

/** Wraps a backend failure that is not already an ArtifactError as `unavailable`. */
export function asArtifactError(error: unknown, operation: string): ArtifactError {
  if (error instanceof ArtifactError) return error;
  const reason = error instanceof Error ? error.message : String(error);
  return new ArtifactError("unavailable", `${operation} failed: ${reason}`, { cause: error });
}
