import { type ArtifactErrorCode, isArtifactError } from "@artifact-kit/core";

/** The process exit codes of `artifact-kit`: stable, documented in the README. */
export const EXIT_CODES = Object.freeze({
  ok: 0,
  /** Not an ArtifactError: a bug in the CLI; rerun with --verbose and report it. */
  internal: 1,
  /** invalid_argument, and command-line usage errors. */
  invalidArgument: 2,
  notFound: 3,
  /** A declared bound: artifact_too_large, quota_exceeded, capacity_reached, ... */
  limit: 4,
  /** corrupt_artifact or invalid_service_reply; also `repair` finding corrupt artifacts. */
  integrity: 5,
  /** The backend failed or gave up: unavailable, timeout, aborted, overloaded, closed. */
  unavailable: 6,
  /** capability_denied, unsupported_transfer. */
  refused: 7,
  /** effect_pending_reconciliation: the change may have happened; a reconciler settles it. */
  pendingReconciliation: 8,
});

const BY_CODE: Readonly<Record<ArtifactErrorCode, number>> = {
  invalid_argument: EXIT_CODES.invalidArgument,
  not_found: EXIT_CODES.notFound,
  artifact_too_large: EXIT_CODES.limit,
  quota_exceeded: EXIT_CODES.limit,
  capacity_reached: EXIT_CODES.limit,
  max_active_scopes_reached: EXIT_CODES.limit,
  result_limit_exceeded: EXIT_CODES.limit,
  corrupt_artifact: EXIT_CODES.integrity,
  invalid_service_reply: EXIT_CODES.integrity,
  unavailable: EXIT_CODES.unavailable,
  timeout: EXIT_CODES.unavailable,
  aborted: EXIT_CODES.unavailable,
  overloaded: EXIT_CODES.unavailable,
  closed: EXIT_CODES.unavailable,
  capability_denied: EXIT_CODES.refused,
  unsupported_transfer: EXIT_CODES.refused,
  effect_pending_reconciliation: EXIT_CODES.pendingReconciliation,
};

export function exitCodeFor(error: unknown): number {
  return isArtifactError(error) ? BY_CODE[error.code] : EXIT_CODES.internal;
}
