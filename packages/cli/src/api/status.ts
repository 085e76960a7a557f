import { type ArtifactErrorCode, isArtifactError } from "@artifact-kit/core";

const BY_CODE: Partial<Record<ArtifactErrorCode, number>> = {
  invalid_argument: 400,
  not_found: 404,
  capability_denied: 403,
  result_limit_exceeded: 400,
  timeout: 504,
  unavailable: 503,
  overloaded: 503,
  closed: 503,
  artifact_too_large: 413,
  quota_exceeded: 507,
  capacity_reached: 507,
  unsupported_transfer: 501,
  // The client ended its own upload: its failure, not the server's.
  aborted: 400,
};

/** The HTTP status of a failure; `detail.reason` refines 400 and 403. */
export function statusFor(error: unknown): number {
  if (!isArtifactError(error)) return 500;
  switch (error.detail.reason) {
    case "unauthenticated":
      return 401;
    case "too_large":
      return 413;
    case "method_not_allowed":
      return 405;
    case "stale_confirmation":
      return 409;
    case "range_not_satisfiable":
      return 416;
    default:
      return BY_CODE[error.code] ?? 500;
  }
}
