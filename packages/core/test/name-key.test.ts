import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareUtf8 } from "../src/index.js";
import {
  decodeBase32Hex,
  encodeBase32Hex,
  FULL_KEY_MAX_NAME_BYTES,
  groupOfKey,
  nameKey,
  nameOfFullKey,
} from "../src/name-key.js";

const compareStrings = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const sign = (n: number) => Math.sign(n);

// Names near the truncation length, sharing prefixes, with non-ASCII and astral characters.
const nameArb = fc
  .tuple(
    fc.constantFrom(
      "",
      "a".repeat(FULL_KEY_MAX_NAME_BYTES - 2),
      "x".repeat(FULL_KEY_MAX_NAME_BYTES),
    ),
    fc.string({
      unit: fc.constantFrom("a", "b", "/", "é", "\uFFFD", "\u{1F600}", "\u0001"),
      maxLength: 6,
    }),
  )
  .map(([stem, tail]) => stem + tail)
  .filter((name) => name.length > 0);

describe("base32hex", () => {
  it("round-trips and preserves byte order", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 12 }), fc.uint8Array({ maxLength: 12 }), (a, b) => {
        expect(decodeBase32Hex(encodeBase32Hex(a))).toEqual(a);
        const bytes = sign(Buffer.compare(a, b));
        expect(sign(compareStrings(encodeBase32Hex(a), encodeBase32Hex(b)))).toBe(bytes);
      }),
    );
  });

  it("rejects non-canonical text", () => {
    expect(decodeBase32Hex("0")).toBeUndefined();
    expect(decodeBase32Hex("01")).toBeUndefined(); // padding bits must be zero
    expect(decodeBase32Hex("W0")).toBeUndefined();
  });
});

describe("name keys", () => {
  it("order whole key groups as the names' UTF-8 bytes, as object names do", () => {
    fc.assert(
      fc.property(nameArb, nameArb, (a, b) => {
        const [ka, kb] = [nameKey(a), nameKey(b)];
        // Objects are "<key>/<version>": compare what GCS compares.
        const objects = sign(compareStrings(`${ka.key}/`, `${kb.key}/`));
        if (ka.group !== kb.group || ka.group === ka.key) {
          expect(objects).toBe(sign(compareUtf8(a, b)));
        }
        expect(ka.key === kb.key).toBe(a === b);
        expect(groupOfKey(ka.key)).toBe(ka.group);
      }),
    );
  });

  it("decode back to the name when full, and fit GCS's object-name budget", () => {
    fc.assert(
      fc.property(nameArb, (name) => {
        const { key, group } = nameKey(name);
        expect(nameOfFullKey(key)).toBe(key === group ? name : undefined);
        expect(key.length).toBeLessThanOrEqual(682);
      }),
    );
  });
});
