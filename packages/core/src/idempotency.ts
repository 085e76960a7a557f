import { isDeepStrictEqual } from "node:util";
import { invalidArgument, notFound } from "./errors.js";
import type { JsonObject } from "./types.js";

// The one definition of what a retried put with an idempotency key gets (PutOptions
// documents it for callers); every adapter calls these instead of deciding on its own.

/** What a retry is compared by: the same bytes (size and digest) and the same description. */
export interface IdempotentPayload {
  readonly size: number;
  readonly sha256: string;
  readonly mimeType: string;
  readonly metadata: JsonObject;
}

/**
 * The answer to a put whose key is already bound to the live version `bound`: `bound` itself
 * (its record, or what the adapter keeps of it) when the payload is the same, else
 * invalid_argument. Writes nothing either way. Call it only once the version is known not to
 * be deleted: a deleted one is idempotentVersionDeleted whatever the payload.
 */
export function replayIdempotentPut<Bound extends IdempotentPayload & { readonly version: number }>(
  bound: Bound,
  retry: IdempotentPayload,
): Bound {
  const same =
    bound.size === retry.size &&
    bound.sha256 === retry.sha256 &&
    bound.mimeType === retry.mimeType &&
    isDeepStrictEqual(bound.metadata, retry.metadata);
  if (!same) {
    throw invalidArgument(
      "idempotencyKey",
      `already used for version ${bound.version} of this name with a different payload`,
    );
  }
  return bound;
}

/**
 * The answer to a put whose key is bound to a version that has since been deleted, whatever
 * the retry's payload: deletion is judged before the payload.
 */
export function idempotentVersionDeleted(version: number): never {
  throw notFound(`version ${version}, which this idempotency key published and was deleted,`, {
    version,
  });
}
