import { createHash, type Hash } from "node:crypto";
import { sha256Hex } from "../scope.js";

/**
 * Verified byte ranges: at publication an adapter records the SHA-256 of every fixed-size
 * block of the data beside the whole-data digest, so a ranged read can verify exactly the
 * blocks it touches instead of the whole artifact.
 */
export const TRANSFER_BLOCK_BYTES = 1024 * 1024;

/** What publication records about the data: size, whole-data SHA-256, and block digests. */
export interface DataDigest {
  readonly size: number;
  readonly sha256: string;
  /** Lowercase hex SHA-256 of each TRANSFER_BLOCK_BYTES block; the last may be shorter. */
  readonly blocks: readonly string[];
}

/**
 * Hashes data fed in pieces of any size, for the whole and for each block, in one pass.
 * The first block's digest is the whole digest so far (a copy of its state), so data of
 * one block is hashed once, and larger data once plus once more from the second block on.
 */
export class BlockDigester {
  readonly #whole: Hash = createHash("sha256");
  /** The hash of the current block from the second block on. */
  #block: Hash | undefined;
  #inBlock = 0;
  #size = 0;
  readonly #blocks: string[] = [];

  get size(): number {
    return this.#size;
  }

  update(chunk: Uint8Array): void {
    this.#size += chunk.byteLength;
    let at = 0;
    while (at < chunk.byteLength) {
      const take = Math.min(TRANSFER_BLOCK_BYTES - this.#inBlock, chunk.byteLength - at);
      const piece = chunk.subarray(at, at + take);
      // The whole hash must stop at the block edge when the first block's digest is taken.
      this.#whole.update(piece);
      this.#block?.update(piece);
      this.#inBlock += take;
      at += take;
      if (this.#inBlock === TRANSFER_BLOCK_BYTES) this.#closeBlock();
    }
  }

  /** Ends the data; the digester is spent afterwards. */
  digest(): DataDigest {
    const firstBlockOpen = this.#block === undefined && this.#inBlock > 0;
    if (this.#inBlock > 0 && !firstBlockOpen) this.#closeBlock();
    const sha256 = this.#whole.digest("hex");
    if (firstBlockOpen) this.#blocks.push(sha256);
    return Object.freeze({ size: this.#size, sha256, blocks: Object.freeze(this.#blocks) });
  }

  #closeBlock(): void {
    this.#blocks.push((this.#block ?? this.#whole.copy()).digest("hex"));
    this.#block = createHash("sha256");
    this.#inBlock = 0;
  }
}

/** The digest of data already whole in memory (a put). */
export function digestData(data: Uint8Array): DataDigest {
  if (data.byteLength <= TRANSFER_BLOCK_BYTES) {
    const sha256 = sha256Hex(data);
    const blocks = data.byteLength === 0 ? [] : [sha256];
    return Object.freeze({ size: data.byteLength, sha256, blocks: Object.freeze(blocks) });
  }
  const digester = new BlockDigester();
  digester.update(data);
  return digester.digest();
}

/**
 * The digest of data whole in memory, one block per turn of the event loop, so that hashing
 * a large put does not hold up every other request of the process meanwhile.
 */
export async function digestDataInTurns(data: Uint8Array): Promise<DataDigest> {
  const digester = new BlockDigester();
  for (let at = 0; at < data.byteLength; at += TRANSFER_BLOCK_BYTES) {
    digester.update(data.subarray(at, at + TRANSFER_BLOCK_BYTES));
    await new Promise((resolve) => setImmediate(resolve));
  }
  return digester.digest();
}

export const blockCount = (size: number): number => Math.ceil(size / TRANSFER_BLOCK_BYTES);

/** A stored list of block digests, checked against the size it must describe; else undefined. */
export function checkBlockDigests(value: unknown, size: number): readonly string[] | undefined {
  if (!Array.isArray(value) || value.length !== blockCount(size)) return undefined;
  for (const digest of value) {
    if (typeof digest !== "string" || !/^[0-9a-f]{64}$/.test(digest)) return undefined;
  }
  return Object.freeze([...(value as string[])]);
}
