import {
  ArtifactError,
  type ArtifactService,
  type ArtifactTransfer,
  hasTransfer,
  invalidArgument,
  type TransferCapabilities,
} from "@artifact-kit/core";
import { bufferedTransfer, parseBuffering } from "./buffered.js";

/** Default and bounds of `chunkBytes`: the most bytes handed to the adapter, or the reader, at once. */
export const DEFAULT_CHUNK_BYTES = 1024 * 1024;
export const MAX_CHUNK_BYTES = 16 * 1024 * 1024;

/**
 * The adapter's native transfer, if it declares `part` in capabilities().transfer and
 * implements it. Otherwise: transfer over put / get when the caller opted in with
 * `buffering`, else unsupported_transfer. There is no silent whole-buffer fallback.
 */
export function negotiateTransfer(
  service: ArtifactService,
  part: keyof TransferCapabilities,
  buffering: unknown,
): ArtifactTransfer {
  const opted = buffering === undefined ? undefined : parseBuffering(buffering);
  if (service.capabilities().transfer?.[part] && hasTransfer(service)) return service;
  if (opted) return bufferedTransfer(service, opted);
  throw new ArtifactError(
    "unsupported_transfer",
    `the adapter does not serve ${part} natively; use put / get, an adapter that does, or opt in to holding the artifact in memory with the buffering option`,
    { detail: { transfer: part } },
  );
}

export function resolveChunkBytes(value: unknown): number {
  if (value === undefined) return DEFAULT_CHUNK_BYTES;
  if (
    typeof value !== "number" ||
    !Number.isSafeInteger(value) ||
    value < 1 ||
    value > MAX_CHUNK_BYTES
  ) {
    throw invalidArgument("chunkBytes", `must be an integer from 1 to ${MAX_CHUNK_BYTES}`);
  }
  return value;
}

/** Keeps a promise's rejection from being reported as unhandled when nobody awaits it. */
export function quiet<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}
