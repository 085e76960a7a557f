import type { FileHandle } from "node:fs/promises";
import { syncHandle, type WriteSettings, writeAll } from "./io.js";

/**
 * How much a streamed upload writes between background flushes: small enough that the disk
 * works while the rest of the upload arrives, large enough that the flushes stay few.
 */
const FLUSH_EVERY_BYTES = 8 * 1024 * 1024;

/**
 * A staging file written front to back by a streamed upload, from a given position (room
 * for the version file's head). Every FLUSH_EVERY_BYTES it starts writing the data back to
 * disk (fdatasync) in the background, so the fsync before publication finds only the tail
 * still dirty rather than the whole file.
 */
export class StagingFile {
  readonly #handle: FileHandle;
  readonly #settings: Pick<WriteSettings, "durability">;
  #unflushed = 0;
  #flushing: Promise<void> | undefined;
  /** Linux reports a writeback error to one fsync only: a background one must keep it. */
  #flushFailure: { error: unknown } | undefined;
  #closed = false;
  #position: number;

  constructor(handle: FileHandle, settings: Pick<WriteSettings, "durability">, start = 0) {
    this.#handle = handle;
    this.#settings = settings;
    this.#position = start;
  }

  /** Where the next write lands: the end of what was written. */
  get position(): number {
    return this.#position;
  }

  /** The open file, for writes elsewhere than its end. */
  get handle(): FileHandle {
    return this.#handle;
  }

  async write(data: Uint8Array): Promise<void> {
    const at = this.#position;
    this.#position += data.byteLength;
    await writeAll(this.#handle, data, at);
    this.#unflushed += data.byteLength;
    if (this.#unflushed >= FLUSH_EVERY_BYTES && this.#flushing === undefined) this.#flush();
  }

  /** Makes everything written durable. */
  async sync(): Promise<void> {
    await this.#flushing;
    if (this.#flushFailure) throw this.#flushFailure.error;
    await syncHandle(this.#handle, this.#settings, true);
  }

  /** Closes the file once no flush is running; closing twice is closing once. */
  async close(): Promise<void> {
    await this.#flushing;
    if (this.#closed) return;
    this.#closed = true;
    await this.#handle.close();
  }

  #flush(): void {
    this.#unflushed = 0;
    this.#flushing = (async () => {
      try {
        await syncHandle(this.#handle, this.#settings, true);
      } catch (error) {
        this.#flushFailure ??= { error };
      } finally {
        this.#flushing = undefined;
      }
    })();
  }
}
