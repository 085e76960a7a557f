import { Readable } from "node:stream";
import type { ReadableStream as NodeWebReadableStream } from "node:stream/web";
import {
  ArtifactError,
  type ArtifactMeta,
  type ArtifactService,
  type ByteRange,
  type DownloadOptions,
  type DownloadSource,
  type Scope,
} from "@artifact-kit/core";
import type { BufferingOptions } from "./buffered.js";
import { negotiateTransfer, quiet, resolveChunkBytes } from "./negotiate.js";

export interface OpenDownloadOptions extends DownloadOptions {
  /** Most bytes per chunk the stream hands out (default 1 MiB). */
  chunkBytes?: number;
  /**
   * Opt-in for an adapter without native streaming download (or byte ranges): get the whole
   * version into memory, refusing one larger than `maxBytes` with artifact_too_large before
   * it is loaded. Ignored when the adapter streams natively.
   */
  buffering?: BufferingOptions;
}

/**
 * One download as a pull-based WHATWG `ReadableStream<Uint8Array>` that reads no further
 * ahead than one chunk. Every byte has been verified against the block
 * digests recorded at publication; a corrupted artifact errors the stream with
 * corrupt_artifact before it can end cleanly. `cancel()` stops it and releases the source.
 */
export class ArtifactDownload extends ReadableStream<Uint8Array> {
  /** The version being read; rejects when it cannot be opened. */
  readonly meta: Promise<ArtifactMeta>;
  /** The bytes served, [offset, offset + length) of the data, clamped to its end. */
  readonly range: Promise<ByteRange>;

  /** @internal Use `openDownload`. */
  constructor(opening: Promise<DownloadSource>, chunkBytes: number, signal?: AbortSignal) {
    let rest: Uint8Array = new Uint8Array(0);
    const stop = async () => {
      rest = new Uint8Array(0);
      await (await opening.catch(() => undefined))?.cancel();
    };
    super(
      {
        start: (controller) => {
          signal?.addEventListener(
            "abort",
            () => {
              controller.error(
                new ArtifactError("aborted", "the download was aborted", { cause: signal.reason }),
              );
              void stop();
            },
            { once: true },
          );
        },
        pull: async (controller) => {
          const source = await opening;
          if (rest.byteLength === 0) {
            const piece = await source.read();
            if (piece === undefined) {
              controller.close();
              return;
            }
            rest = piece;
          }
          controller.enqueue(rest.subarray(0, chunkBytes));
          rest = rest.subarray(chunkBytes);
        },
        cancel: stop,
      },
      // One chunk read ahead, no more: the next read overlaps the consumer's write.
      new CountQueuingStrategy({ highWaterMark: 1 }),
    );
    this.meta = quiet(opening.then((source) => source.meta));
    this.range = quiet(
      opening.then((source) => ({ offset: source.offset, length: source.length })),
    );
  }

  /**
   * This download as a Node `Readable`, for `stream.pipeline` under typings that do not
   * take a WHATWG stream as a source (TypeScript's older DOM-less libs).
   */
  toNodeReadable(): Readable {
    return Readable.fromWeb(this as unknown as NodeWebReadableStream<Uint8Array>);
  }
}

/**
 * Opens a bounded, pull-based download of (scope, name): the latest version or `version`,
 * whole or `range`. Requires `capabilities().transfer.streamingDownload` (or `byteRanges`
 * for a range); otherwise unsupported_transfer.
 */
export function openDownload(
  service: ArtifactService,
  scope: Scope,
  name: string,
  options?: OpenDownloadOptions,
): ArtifactDownload {
  const { chunkBytes, buffering, ...downloadOptions } = options ?? {};
  const transfer = negotiateTransfer(
    service,
    options?.range === undefined ? "streamingDownload" : "byteRanges",
    buffering,
  );
  const size = resolveChunkBytes(chunkBytes);
  const opening = quiet(transfer.openDownload(scope, name, downloadOptions));
  return new ArtifactDownload(opening, size, options?.signal);
}
