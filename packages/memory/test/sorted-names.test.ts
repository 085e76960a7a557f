import { compareUtf8 } from "@artifact-kit/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SortedNames } from "../src/sorted-names.js";

/** The reference: one sorted array, rebuilt after every change. */
function reference(names: Set<string>): string[] {
  return [...names].sort(compareUtf8);
}

const name = fc.oneof(
  { arbitrary: fc.integer({ min: 0, max: 5_000 }).map((n) => `n${n}`), weight: 4 },
  { arbitrary: fc.string({ unit: "grapheme", minLength: 1, maxLength: 3 }), weight: 1 },
);
// Two inserts for each remove, so that scopes grow past one chunk (1,024 names) and split.
const change = fc.record({ insert: fc.constantFrom(true, true, false), name });

describe("SortedNames", () => {
  it("matches a sorted array through inserts and removes, across chunk splits", () => {
    fc.assert(
      fc.property(fc.array(change, { minLength: 4_000, maxLength: 5_000 }), (changes) => {
        const names = new SortedNames();
        const model = new Set<string>();
        let largest = 0;
        for (const { insert, name } of changes) {
          if (insert) {
            names.insert(name);
            model.add(name);
          } else {
            names.remove(name);
            model.delete(name);
          }
          largest = Math.max(largest, names.size);
        }
        expect(largest).toBeGreaterThan(1_024);
        const expected = reference(model);
        expect([...names]).toEqual(expected);
        expect(names.size).toBe(expected.length);
        return true;
      }),
      { numRuns: 8 },
    );
  }, 300_000);

  it("pages after any cursor and under any prefix exactly like filtering and slicing the sorted array", () => {
    const names = new SortedNames();
    const model = new Set<string>();
    for (let i = 0; i < 3_000; i++) {
      const value = `${"abk"[i % 3]}${(i * 7919) % 4_001}`;
      names.insert(value);
      model.add(value);
    }
    const sorted = reference(model);
    const prefix = fc.option(fc.constantFrom("a", "k1", "b2", "k", "k10", "z", "a39"), {
      nil: undefined,
    });
    fc.assert(
      fc.property(
        fc.option(name, { nil: undefined }),
        fc.integer({ min: 1, max: 1_500 }),
        prefix,
        (cursor, limit, prefix) => {
          const expected = sorted.filter(
            (n) =>
              (prefix === undefined || n.startsWith(prefix)) &&
              (cursor === undefined || compareUtf8(n, cursor) > 0),
          );
          const items = expected.slice(0, limit);
          const page = names.page({ cursor, limit, prefix });
          expect(page.items).toEqual(items);
          expect(page.nextCursor).toBe(
            limit < expected.length ? items[items.length - 1] : undefined,
          );
          return true;
        },
      ),
      { numRuns: 300 },
    );
  });
});
