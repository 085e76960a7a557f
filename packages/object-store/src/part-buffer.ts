import { type Deadline, invalidArgument } from "@artifact-kit/core";

/** Sends one part's bytes; the view is the buffer's own, valid only until the promise settles. */
export type FlushPart = (part: Uint8Array, deadline: Deadline) => Promise<void>;

/**
 * The one part a streamed upload holds in memory: lent chunks are copied into a buffer of
 * `partBytes`, and each time it fills it is handed to `flush` (an S3 part, an Azure block)
 * before the next byte goes in, so an upload holds one part however large it grows. The
 * buffer is allocated at the first byte, so an upload that writes nothing holds nothing.
 *
 * A failed flush fails this buffer for good: the chunk it interrupted is partly copied, so
 * any later write or flush throws the same failure rather than stage data with a hole in it
 * (the upload is then discarded, as core's upload sink does).
 */
export class PartBuffer {
  readonly #partBytes: number;
  readonly #flush: FlushPart;
  #part = new Uint8Array(0);
  #filled = 0;
  #flushing = false;
  #failure: { error: unknown } | undefined;

  constructor(partBytes: number, flush: FlushPart) {
    if (!Number.isSafeInteger(partBytes) || partBytes < 1) {
      throw invalidArgument("partBytes", "must be a positive integer");
    }
    this.#partBytes = partBytes;
    this.#flush = flush;
  }

  /** The bytes written since the last flush (a view, valid until the next write or flush). */
  get pending(): Uint8Array {
    return this.#part.subarray(0, this.#filled);
  }

  /** Copies the lent chunk in, flushing each part as it fills. */
  async write(chunk: Uint8Array, deadline: Deadline): Promise<void> {
    this.#checkIdle();
    let at = 0;
    while (at < chunk.byteLength) {
      if (this.#part.byteLength === 0) this.#part = new Uint8Array(this.#partBytes);
      const take = Math.min(this.#partBytes - this.#filled, chunk.byteLength - at);
      this.#part.set(chunk.subarray(at, at + take), this.#filled);
      this.#filled += take;
      at += take;
      if (this.#filled === this.#partBytes) await this.#send(deadline);
    }
  }

  /** Flushes the partly filled last part, if any bytes are pending. */
  async flushPending(deadline: Deadline): Promise<void> {
    this.#checkIdle();
    if (this.#filled > 0) await this.#send(deadline);
  }

  /** Drops the buffer (and anything pending), so a finished upload holds nothing. */
  release(): void {
    this.#part = new Uint8Array(0);
    this.#filled = 0;
  }

  /** The part's bytes belong to `flush` until it settles; only then is the buffer refilled. */
  async #send(deadline: Deadline): Promise<void> {
    this.#flushing = true;
    try {
      await this.#flush(this.#part.subarray(0, this.#filled), deadline);
      this.#filled = 0;
    } catch (error) {
      this.#failure = { error };
      throw error;
    } finally {
      this.#flushing = false;
    }
  }

  #checkIdle(): void {
    if (this.#failure) throw this.#failure.error;
    // Overwriting the buffer now would change the bytes of the part being sent.
    if (this.#flushing) {
      throw invalidArgument("upload", "has a write in flight; await it first");
    }
  }
}
