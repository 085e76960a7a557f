import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BlockDigester, digestData } from "../src/adapter/index.js";
import { TRANSFER_BLOCK_BYTES } from "../src/index.js";

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
  it("equal the whole and per-block SHA-256, however the data is fed", () => {
    fc.assert(
      fc.property(
        sizeArb,
        fc.array(fc.integer({ min: 1, max: 2 * TRANSFER_BLOCK_BYTES })),
        (size, cuts) => {
          const data = new Uint8Array(size).fill(size & 0xff);
          for (let at = 0; at < size; at += 4093) data[at] = (at >> 12) & 0xff; // blocks differ
          const digester = new BlockDigester();
          let at = 0;
          for (const cut of cuts) {
            if (at >= size) break;
            digester.update(data.subarray(at, at + cut));
            at += cut;
          }
          digester.update(data.subarray(at));
          const want = expected(data);
          expect(digester.digest()).toEqual(want);
          expect(digestData(data)).toEqual(want);
        },
      ),
      { numRuns: 30 },
    );
  }, 300_000);
});
