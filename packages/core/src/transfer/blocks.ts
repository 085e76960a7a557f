import { createHash, type Hash } from "node:crypto";

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

/** Hashes data fed in pieces of any size, for the whole and for each block, in one pass. */
export class BlockDigester {
  readonly #whole: Hash = createHash("sha256");
  #block: Hash = createHash("sha256");
  #inBlock = 0;
  #size = 0;
  readonly #blocks: string[] = [];

  get size(): number {
    return this.#size;
  }

  update(chunk: Uint8Array): void {
    this.#whole.update(chunk);
    this.#size += chunk.byteLength;
    let at = 0;
    while (at < chunk.byteLength) {
      const take = Math.min(TRANSFER_BLOCK_BYTES - this.#inBlock, chunk.byteLength - at);
      this.#block.update(chunk.subarray(at, at + take));
      this.#inBlock += take;
      at += take;
      if (this.#inBlock === TRANSFER_BLOCK_BYTES) this.#closeBlock();
    }
  }

  /** Ends the data; the digester is spent afterwards. */
  digest(): DataDigest {
    if (this.#inBlock > 0) this.#closeBlock();
    return Object.freeze({
      size: this.#size,
      sha256: this.#whole.digest("hex"),
      blocks: Object.freeze(this.#blocks),
    });
  }

  #closeBlock(): void {
    this.#blocks.push(this.#block.digest("hex"));
    this.#block = createHash("sha256");
    this.#inBlock = 0;
  }
}

/** The digest of data already whole in memory (a put). */
export function digestData(data: Uint8Array): DataDigest {
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
