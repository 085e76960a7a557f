import type { ArtifactError, ArtifactErrorCode } from "@artifact-kit/core";

/** What a failure of the server's own side may say: its code and one fixed sentence. */
const SERVER_SIDE_MESSAGES: Partial<Record<ArtifactErrorCode, string>> = {
  unavailable: "the store or the resource provider failed; the server's log has the cause",
  timeout: "the request did not finish within the server's deadline",
  overloaded: "the store is overloaded; retry later",
  closed: "the store is closed",
  quota_exceeded: "the store's quota is reached",
  capacity_reached: "the store's capacity is reached",
  unsupported_transfer: "the store cannot stream this transfer",
};

interface PublicError {
  code: ArtifactErrorCode;
  message: string;
  detail: ArtifactError["detail"];
}

/**
 * The error body of an answer. A 4xx failure is the caller's own (a bad id, a missing
 * token) and is told as it is. A 5xx failure comes from the store or the provider, whose
 * messages carry paths, hosts and backend words: only its code and a fixed sentence leave.
 */
export function publicError(failure: ArtifactError, status: number): PublicError {
  const { code, message, detail } = failure;
  if (status < 500) return { code, message, detail };
  return { code, message: SERVER_SIDE_MESSAGES[code] ?? "the request failed", detail: {} };
}
