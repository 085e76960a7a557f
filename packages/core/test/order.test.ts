import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { namePage, pageAfter, prefixUpperBound } from "../src/adapter/index.js";
import { compareUtf8 } from "../src/index.js";

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

describe("namePage", () => {
  it("equals filtering the sorted names by prefix and cursor, then taking the limit", () => {
    const word = fc.string({ unit: fc.constantFrom("a", "b", "é", "😀", "/"), maxLength: 4 });
    fc.assert(
      fc.property(
        fc.uniqueArray(
          word.filter((w) => w.length > 0),
          { minLength: 0, maxLength: 40 },
        ),
        fc.option(word, { nil: undefined }),
        fc.option(
          word.filter((w) => w.length > 0),
          { nil: undefined },
        ),
        fc.integer({ min: 1, max: 8 }),
        (names, prefix, cursor, limit) => {
          const sorted = [...names].sort(compareUtf8);
          const expected = sorted.filter(
            (n) =>
              (prefix === undefined || n.startsWith(prefix)) &&
              (cursor === undefined || compareUtf8(n, cursor) > 0),
          );
          const page = namePage(sorted, { cursor, limit, prefix });
          expect(page.items).toEqual(expected.slice(0, limit));
          expect(page.nextCursor).toBe(expected.length > limit ? expected[limit - 1] : undefined);
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe("prefixUpperBound", () => {
  it("bounds exactly the strings that start with the prefix, in UTF-8 order", () => {
    const unit = fc.constantFrom(
      "a",
      "z",
      "\u{D7FF}",
      "\u{E000}",
      "\u{FFFF}",
      "\u{10000}",
      "\u{10FFFF}",
    );
    const text = fc.string({ unit, maxLength: 4 });
    fc.assert(
      fc.property(
        text.filter((p) => p.length > 0),
        text,
        (prefix, name) => {
          const upper = prefixUpperBound(prefix);
          const inRun =
            compareUtf8(name, prefix) >= 0 && (upper === undefined || compareUtf8(name, upper) < 0);
          expect(inRun).toBe(name.startsWith(prefix));
          if (upper !== undefined) expect(upper.isWellFormed()).toBe(true);
        },
      ),
      { numRuns: 3000 },
    );
  });
});
