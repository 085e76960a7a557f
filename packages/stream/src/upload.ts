import { Writable } from "node:stream";
import {
  ArtifactError,
  type ArtifactMeta,
  type ArtifactService,
  asArtifactError,
  invalidArgument,
  type Scope,
  type UploadOptions,
  type UploadSink,
} from "@artifact-kit/core";
import type { BufferingOptions } from "./buffered.js";
import { negotiateTransfer, quiet, resolveChunkBytes } from "./negotiate.js";

export interface OpenUploadOptions extends UploadOptions {
  /** Most bytes handed to the adapter per write (default 1 MiB); larger writes are split. */
  chunkBytes?: number;
  /**
   * Opt-in for an adapter without native streaming upload: gather the chunks in memory (at
   * most `maxBytes`) and publish them with one put. Ignored when the adapter streams natively.
   */
  buffering?: BufferingOptions;
}

/**
 * One upload as a WHATWG `WritableStream<Uint8Array>` (so it also works as the destination
 * of Node's `stream.pipeline`). At most one chunk is in flight: a write resolves when the
 * adapter has taken it. Closing the stream (or `finish()`) publishes; `abort()` publishes
 * nothing.
 */
export class ArtifactUpload extends WritableStream<Uint8Array> {
  /** The published record, once the stream is closed; rejects when the upload fails. */
  readonly meta: Promise<ArtifactMeta>;
  #writer: WritableStreamDefaultWriter<Uint8Array> | undefined;

  /** @internal Use `openUpload`. */
  constructor(opening: Promise<UploadSink>, chunkBytes: number) {
    let settle!: { resolve: (meta: ArtifactMeta) => void; reject: (error: unknown) => void };
    const meta = quiet(
      new Promise<ArtifactMeta>((resolve, reject) => {
        settle = { resolve, reject };
      }),
    );
    const failed = (error: unknown) => {
      const failure = asArtifactError(error, "upload");
      settle.reject(failure);
      return failure;
    };
    super(
      {
        write: async (chunk) => {
          try {
            const sink = await opening;
            if (!(chunk instanceof Uint8Array))
              throw invalidArgument("chunk", "must be a Uint8Array");
            for (let at = 0; at < chunk.byteLength; at += chunkBytes) {
              await sink.write(chunk.subarray(at, at + chunkBytes));
            }
          } catch (error) {
            throw failed(error);
          }
        },
        close: async () => {
          try {
            settle.resolve(await (await opening).finish());
          } catch (error) {
            throw failed(error);
          }
        },
        abort: async (reason) => {
          const sink = await opening.catch(() => undefined);
          await sink?.abort(reason);
          failed(new ArtifactError("aborted", "the upload was aborted", { cause: reason }));
        },
      },
      new CountQueuingStrategy({ highWaterMark: 1 }),
    );
    this.meta = meta;
  }

  /** Writes one chunk; resolves when the adapter has taken it. */
  async write(chunk: Uint8Array): Promise<void> {
    const writer = this.#ownWriter();
    await writer.ready;
    await writer.write(chunk);
  }

  /** Publishes everything written and returns its record. */
  async finish(): Promise<ArtifactMeta> {
    await this.#ownWriter().close();
    return this.meta;
  }

  /** Discards everything written; publishes nothing. */
  override abort(reason?: unknown): Promise<void> {
    return this.#writer ? this.#writer.abort(reason) : super.abort(reason);
  }

  /**
   * This upload as a Node `Writable`, for `stream.pipeline` with Node's own typings (which
   * accept only Node streams as a destination); its `finish` event follows publication.
   */
  toNodeWritable(): Writable {
    return Writable.fromWeb(this as WritableStream);
  }

  #ownWriter(): WritableStreamDefaultWriter<Uint8Array> {
    if (!this.#writer) {
      if (this.locked) throw invalidArgument("upload", "is being written through its stream");
      this.#writer = this.getWriter();
    }
    return this.#writer;
  }
}

/**
 * Opens a bounded streaming upload of a new version of (scope, name). Requires an adapter
 * that declares `capabilities().transfer.streamingUpload`; otherwise unsupported_transfer.
 * Bound to `signal`, the deadline (`timeoutMs`) and `maxBytes`: past any of them the upload
 * fails and publishes nothing.
 */
export function openUpload(
  service: ArtifactService,
  scope: Scope,
  name: string,
  options?: OpenUploadOptions,
): ArtifactUpload {
  const { chunkBytes, buffering, ...uploadOptions } = options ?? {};
  const transfer = negotiateTransfer(service, "streamingUpload", buffering);
  const size = resolveChunkBytes(chunkBytes);
  const opening = quiet(transfer.openUpload(scope, name, uploadOptions));
  return new ArtifactUpload(opening, size);
}
