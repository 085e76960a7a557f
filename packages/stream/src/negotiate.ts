import {
  ArtifactError,
  type ArtifactService,
  type ArtifactTransfer,
  hasTransfer,
  invalidArgument,
  type TransferCapabilities,
} from "@artifact-kit/core";

/** Default and bounds of `chunkBytes`: the most bytes handed to the adapter, or the reader, at once. */
export const DEFAULT_CHUNK_BYTES = 1024 * 1024;
export const MAX_CHUNK_BYTES = 16 * 1024 * 1024;

/**
 * The adapter's native transfer, if it declares `part` in capabilities().transfer and
 * implements it; otherwise unsupported_transfer. There is no silent whole-buffer fallback.
 */
export function nativeTransfer(
  service: ArtifactService,
  part: keyof TransferCapabilities,
): ArtifactTransfer {
  if (!service.capabilities().transfer?.[part] || !hasTransfer(service)) {
    throw new ArtifactError(
      "unsupported_transfer",
      `the adapter does not serve ${part} natively; use put / get, or an adapter that does`,
      { detail: { transfer: part } },
    );
  }
  return service;
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
