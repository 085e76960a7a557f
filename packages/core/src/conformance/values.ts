import fc from "fast-check";
import { MAX_METADATA_BYTES, MAX_METADATA_DEPTH, MAX_METADATA_ENTRIES } from "../limits.js";
import type { JsonObject, JsonValue } from "../types.js";
import { expectTrue } from "./expect.js";

// The value domain: metadata as arbitrary JSON within the limits, with what JSON, JavaScript
// objects and databases treat specially (prototype-named keys, control characters and NUL,
// deep nesting, any key order, every finite number), and identifiers that differ only by
// case, whitespace or Unicode normalization.

/** Keys a careless `target[key] = value` or a JSON column mistreats. */
export const SPECIAL_KEYS: readonly string[] = Object.freeze([
  "__proto__",
  "constructor",
  "toString",
  "prototype",
  "hasOwnProperty",
  "valueOf",
  "",
  "\0",
  "a\0b",
  "\u0001",
  "\u001f",
  "\u007f",
  "\u0085",
  "\u2028",
  "$ref",
  "é",
  "e\u0301",
  "😀",
]);

/** Numbers whose text or bits an adapter may lose: -0, tiny, huge, the edges of integers. */
export const SPECIAL_NUMBERS: readonly number[] = Object.freeze([
  -0,
  0,
  1e-7,
  1.5e300,
  -1.5e300,
  2 ** 53,
  -(2 ** 53),
  2 ** 53 - 1,
  Number.MAX_VALUE,
  Number.MIN_VALUE,
  -Number.MIN_VALUE,
  0.1,
  1 / 3,
  1e21,
  1e-21,
  123_456_789.123_456_79,
]);

/** C0 controls, DEL and C1 controls: what a JSON column, a header or a log line mangles. */
const controlText = fc.string({
  unit: fc
    .oneof(
      fc.integer({ min: 0, max: 0x1f }),
      fc.constant(0x7f),
      fc.integer({ min: 0x80, max: 0x9f }),
    )
    .map((code) => String.fromCharCode(code)),
  maxLength: 4,
});

const keyArb = fc.oneof(
  { arbitrary: fc.constantFrom(...SPECIAL_KEYS), weight: 2 },
  { arbitrary: controlText, weight: 1 },
  { arbitrary: fc.string({ maxLength: 6, unit: "binary" }), weight: 2 },
);

const leafArb: fc.Arbitrary<JsonValue> = fc.oneof(
  fc.constantFrom(...SPECIAL_NUMBERS),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.maxSafeInteger(),
  fc.constantFrom(...SPECIAL_KEYS),
  controlText,
  fc.string({ maxLength: 8, unit: "binary" }),
  fc.boolean(),
  fc.constant(null),
);

/** An object built with own data properties, "__proto__" included, in the order given. */
const objectOf = (entries: readonly (readonly [string, JsonValue])[]): JsonObject =>
  Object.fromEntries(entries) as JsonObject;

const { value: jsonValueArb } = fc.letrec<{ value: JsonValue }>((tie) => ({
  value: fc.oneof(
    { maxDepth: MAX_METADATA_DEPTH - 1, depthSize: "small" },
    leafArb,
    fc.array(tie("value"), { maxLength: 3 }),
    fc.array(fc.tuple(keyArb, tie("value")), { maxLength: 3 }).map(objectOf),
  ),
}));

/** A chain of prototype-named keys nested to exactly the depth limit. */
const deepArb: fc.Arbitrary<JsonObject> = fc
  .array(fc.constantFrom(...SPECIAL_KEYS), {
    minLength: MAX_METADATA_DEPTH - 1,
    maxLength: MAX_METADATA_DEPTH - 1,
  })
  .chain((keys) =>
    leafArb.map((leaf) =>
      keys.reduceRight<JsonValue>((inner, key) => objectOf([[key, inner]]), leaf),
    ),
  )
  .map((chain) => objectOf([["deep", chain]]));

/** Entries and nesting as core's validation counts them. */
function measure(value: JsonValue, depth = 1): { entries: number; depth: number } {
  if (typeof value !== "object" || value === null) return { entries: 0, depth: depth - 1 };
  let entries = 0;
  let deepest = depth;
  for (const child of Object.values(value)) {
    const inner = measure(child, depth + 1);
    entries += 1 + inner.entries;
    deepest = Math.max(deepest, inner.depth);
  }
  return { entries, depth: deepest };
}

const withinLimits = (metadata: JsonObject) => {
  const { entries, depth } = measure(metadata);
  return (
    entries <= MAX_METADATA_ENTRIES &&
    depth <= MAX_METADATA_DEPTH &&
    Buffer.byteLength(JSON.stringify(metadata)) <= MAX_METADATA_BYTES
  );
};

/** Metadata as arbitrary JSON within every limit, any key order, deep chains included. */
export const jsonMetadataArb: fc.Arbitrary<JsonObject> = fc
  .oneof(
    {
      arbitrary: fc.array(fc.tuple(keyArb, jsonValueArb), { maxLength: 6 }).map(objectOf),
      weight: 4,
    },
    { arbitrary: deepArb, weight: 1 },
  )
  .filter(withinLimits);

/** What a stored value must read back as: the same JSON, with -0 as 0 (JSON has no -0). */
export function expectExactJson(actual: unknown, expected: JsonValue, what: string): void {
  if (typeof expected === "number") {
    const want = expected === 0 ? 0 : expected;
    expectTrue(
      Object.is(actual, want),
      `${what}: expected the number ${Object.is(expected, -0) ? "0 (stored from -0)" : String(want)}, got ${String(actual)}`,
    );
    return;
  }
  if (typeof expected !== "object" || expected === null) {
    expectTrue(
      Object.is(actual, expected),
      `${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`,
    );
    return;
  }
  expectTrue(
    typeof actual === "object" &&
      actual !== null &&
      Array.isArray(actual) === Array.isArray(expected),
    `${what}: expected ${Array.isArray(expected) ? "an array" : "an object"}, got ${JSON.stringify(actual)}`,
  );
  const got = actual as Record<string, unknown>;
  const want = expected as Record<string, JsonValue>;
  const keys = (value: object) => Object.keys(value).sort();
  expectTrue(
    JSON.stringify(keys(got)) === JSON.stringify(keys(want)),
    `${what}: expected the own keys ${JSON.stringify(keys(want))}, got ${JSON.stringify(keys(got))}`,
  );
  for (const key of Object.keys(want)) {
    expectExactJson(got[key], want[key] as JsonValue, `${what}[${JSON.stringify(key)}]`);
  }
}

/**
 * Identifiers that differ from each other only by case, whitespace, Unicode normalization
 * (NFC and NFD, compatibility forms) or case folding: each is its own artifact or scope.
 */
export const LOOKALIKE_IDS: readonly string[] = Object.freeze([
  "report",
  "Report",
  "REPORT",
  "report ",
  " report",
  "re port",
  "report\t",
  "r\u00e9sum\u00e9",
  "re\u0301sume\u0301",
  "\u00c5",
  "A\u030a",
  "\u212b",
  "\ufb01",
  "fi",
  "\uff21\uff22",
  "AB",
  "stra\u00dfe",
  "strasse",
  // Invisible characters a sanitizer drops: zero-width space, joiner, word joiner, BOM.
  "re\u200bport",
  "re\u200dport",
  "rep\u2060ort",
  "\ufeffreport",
]);
