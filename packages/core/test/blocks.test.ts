import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BlockDigester, digestData, digestDataInTurns } from "../src/adapter/index.js";
import { TRANSFER_BLOCK_BYTES } from "../src/index.js";
import { PooledBlockDigester } from "../src/transfer/pooled-blocks.js";

const sha = (data: Uint8Array) => createHash("sha256").update(data).digest("hex");

/** The digests computed the slow, obvious way: the whole, then each block on its own. */
function expected(data: Uint8Array) {
  const blocks: string[] = [];
  for (let at = 0; at < data.byteLength; at += TRANSFER_BLOCK_BYTES) {
    blocks.push(sha(data.subarray(at, at + TRANSFER_BLOCK_BYTES)));
  }
  return { size: data.byteLength, sha256: sha(data), blocks };
}

// Sizes around the block edges, where a digester that reuses the whole hash could go wrong.
const sizeArb = fc.oneof(
  fc.constantFrom(0, 1, TRANSFER_BLOCK_BYTES - 1, TRANSFER_BLOCK_BYTES, TRANSFER_BLOCK_BYTES + 1),
  fc.integer({ min: 0, max: 3 * TRANSFER_BLOCK_BYTES + 7 }),
);

describe("block digests", () => {
  it("equal the whole and per-block SHA-256, however the data is fed", async () => {
    await fc.assert(
      fc.asyncProperty(
        sizeArb,
        fc.array(fc.integer({ min: 1, max: 2 * TRANSFER_BLOCK_BYTES })),
        async (size, cuts) => {
          const data = new Uint8Array(size).fill(size & 0xff);
          for (let at = 0; at < size; at += 4093) data[at] = (at >> 12) & 0xff; // blocks differ
          const digester = new BlockDigester();
          const pooled = new PooledBlockDigester();
          let at = 0;
          const feed = async (piece: Uint8Array) => {
            digester.update(piece);
            const copy = new Uint8Array(piece);
            const caughtUp = pooled.update(copy);
            // The pooled digester keeps no reference to what it was given.
            copy.fill(0xee);
            await caughtUp;
          };
          for (const cut of cuts) {
            if (at >= size) break;
            await feed(data.subarray(at, at + cut));
            at += cut;
          }
          await feed(data.subarray(at));
          const want = expected(data);
          expect(digester.digest()).toEqual(want);
          expect(await pooled.digest()).toEqual(want);
          expect(pooled.size).toBe(size);
          expect(digestData(data)).toEqual(want);
          expect(await digestDataInTurns(data)).toEqual(want);
        },
      ),
      { numRuns: 30 },
    );
  }, 300_000);

  it("hold at most a few blocks for the thread pool: update waits for it past that", async () => {
    const pooled = new PooledBlockDigester();
    const block = new Uint8Array(TRANSFER_BLOCK_BYTES);
    const waited: boolean[] = [];
    for (let i = 0; i < 8; i++) {
      const caughtUp = pooled.update(block);
      waited.push(caughtUp !== undefined);
      await caughtUp;
    }
    // The first block is hashed here; later ones go to the pool, two at most waiting freely:
    // the third is handed over before the pool's answers can come in (no turn of the event
    // loop has passed, only microtasks), so that update waits.
    expect(waited.slice(0, 4)).toEqual([false, false, false, true]);
    const want = expected(new Uint8Array(8 * TRANSFER_BLOCK_BYTES));
    expect(await pooled.digest()).toEqual(want);
  });
});
