import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareUtf8, pageAfter } from "../src/index.js";

const utf8 = (s: string) => Buffer.from(s, "utf8");

describe("compareUtf8", () => {
  it("agrees with a byte comparison of the UTF-8 encodings", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), fc.string({ unit: "binary" }), (a, b) => {
        expect(Math.sign(compareUtf8(a, b))).toBe(Math.sign(Buffer.compare(utf8(a), utf8(b))));
      }),
      { numRuns: 2000 },
    );
  });

  it("orders astral characters after U+E000..U+FFFF, unlike JavaScript's default sort", () => {
    const names = ["😀", "ｚ", "a"];
    expect([...names].sort()).toEqual(["a", "😀", "ｚ"]);
    expect([...names].sort(compareUtf8)).toEqual(["a", "ｚ", "😀"]);
  });
});

describe("pageAfter", () => {
  it("pages concatenate to the whole array, with exclusive cursors", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.nat(1000)), fc.integer({ min: 1, max: 7 }), (values, limit) => {
        const sorted = [...values].sort((a, b) => a - b);
        const seen: number[] = [];
        let cursor: number | undefined;
        do {
          const page = pageAfter(
            sorted,
            { cursor, limit },
            (v) => v,
            (a, b) => a - b,
          );
          expect(page.items.length).toBeLessThanOrEqual(limit);
          seen.push(...page.items);
          cursor = page.nextCursor;
        } while (cursor !== undefined);
        expect(seen).toEqual(sorted);
      }),
    );
  });

  it("starts after a cursor that is not in the array", () => {
    const page = pageAfter(
      [1, 3, 5, 7],
      { cursor: 4, limit: 2 },
      (v) => v,
      (a, b) => a - b,
    );
    expect(page).toEqual({ items: [5, 7] });
  });
});
