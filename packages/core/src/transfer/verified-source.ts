import { createHash } from "node:crypto";
import type { Deadline } from "../deadline.js";
import { ArtifactError, asArtifactError } from "../errors.js";
import type { ArtifactMeta } from "../types.js";
import { TRANSFER_BLOCK_BYTES } from "./blocks.js";
import type { ByteRange, DownloadSource } from "./contract.js";

export interface VerifiedSourceInput {
  readonly meta: ArtifactMeta;
  /** The block digests recorded at publication (checked against meta.size by the adapter). */
  readonly blocks: readonly string[];
  /** The range to serve, already resolved against meta.size. */
  readonly range: ByteRange;
  readonly deadline: Deadline;
  /**
   * The stored data bytes [start, end), in pieces of any size, read on demand. Called once,
   * with block-aligned bounds; the source returns the iterator early when it stops. Each
   * piece must be a buffer of its own (never a view of stored state): a piece that is exactly
   * one block is handed out as it is, without a copy.
   */
  readonly read: (start: number, end: number) => AsyncIterable<Uint8Array>;
  /** Releases what the download holds (an open file); called once, when it ends or stops. */
  readonly close?: () => Promise<void>;
}

/**
 * A download that hands out only verified bytes: it reads the blocks the range touches one
 * at a time, checks each against its recorded SHA-256, and only then slices the range out
 * of it. It holds at most one block, so memory stays bounded whatever the artifact's size.
 */
export function verifiedSource(input: VerifiedSourceInput): DownloadSource {
  return new VerifiedSource(input);
}

class VerifiedSource implements DownloadSource {
  readonly meta: ArtifactMeta;
  readonly offset: number;
  readonly length: number;
  readonly #input: VerifiedSourceInput;
  #nextBlock: number;
  readonly #endBlock: number;
  #pieces: AsyncIterator<Uint8Array> | undefined;
  /** Bytes read past the block being assembled. */
  #carry: Uint8Array = new Uint8Array(0);
  #done: boolean;
  #close: (() => Promise<void>) | undefined;

  constructor(input: VerifiedSourceInput) {
    this.meta = input.meta;
    this.offset = input.range.offset;
    this.length = input.range.length;
    this.#input = input;
    this.#nextBlock = Math.floor(this.offset / TRANSFER_BLOCK_BYTES);
    this.#endBlock = Math.ceil((this.offset + this.length) / TRANSFER_BLOCK_BYTES);
    this.#done = this.length === 0;
    this.#close = input.close;
  }

  async read(): Promise<Uint8Array | undefined> {
    if (this.#done) {
      await this.cancel();
      return undefined;
    }
    try {
      this.#input.deadline.check();
      const index = this.#nextBlock;
      const start = index * TRANSFER_BLOCK_BYTES;
      const end = Math.min(this.meta.size, start + TRANSFER_BLOCK_BYTES);
      const block = await this.#take(end - start);
      const digest = createHash("sha256").update(block).digest("hex");
      if (digest !== this.#input.blocks[index]) {
        throw new ArtifactError(
          "corrupt_artifact",
          `block ${index} of version ${this.meta.version} does not match its SHA-256`,
          { detail: { version: this.meta.version, block: index } },
        );
      }
      this.#nextBlock += 1;
      if (this.#nextBlock >= this.#endBlock) await this.cancel();
      const from = Math.max(this.offset, start) - start;
      const to = Math.min(this.offset + this.length, end) - start;
      return block.subarray(from, to);
    } catch (error) {
      await this.cancel();
      throw asArtifactError(error, "download");
    }
  }

  async cancel(): Promise<void> {
    this.#done = true;
    this.#carry = new Uint8Array(0);
    const pieces = this.#pieces;
    this.#pieces = undefined;
    const close = this.#close;
    this.#close = undefined;
    try {
      await pieces?.return?.();
    } finally {
      await close?.();
    }
  }

  /** The next `size` stored bytes, in a buffer of their own. */
  async #take(size: number): Promise<Uint8Array> {
    this.#pieces ??= this.#input
      .read(
        this.#nextBlock * TRANSFER_BLOCK_BYTES,
        Math.min(this.meta.size, this.#endBlock * TRANSFER_BLOCK_BYTES),
      )
      [Symbol.asyncIterator]();
    if (this.#carry.byteLength === 0) {
      const next = await this.#pieces.next();
      if (!next.done && next.value.byteLength === size) return next.value;
      this.#carry = next.done ? this.#carry : next.value;
      if (next.done) throw this.#endedEarly();
    }
    const block = new Uint8Array(size);
    let filled = 0;
    while (filled < size) {
      if (this.#carry.byteLength === 0) {
        const next = await this.#pieces.next();
        if (next.done) throw this.#endedEarly();
        this.#carry = next.value;
      }
      const take = Math.min(size - filled, this.#carry.byteLength);
      block.set(this.#carry.subarray(0, take), filled);
      this.#carry = this.#carry.subarray(take);
      filled += take;
    }
    return block;
  }

  #endedEarly(): ArtifactError {
    return new ArtifactError(
      "corrupt_artifact",
      `the stored data of version ${this.meta.version} ends before its recorded size`,
      { detail: { version: this.meta.version } },
    );
  }
}
