import { MAX_NAME_BYTES, MAX_SCOPE_ID_BYTES, type Scope } from "@artifact-kit/core";
import fc from "fast-check";
import { JOURNAL_LIMITS } from "../limits.js";
import type { EffectReceipt } from "../types.js";

// The value domain a journal must keep exactly: texts long in bytes but short in UTF-16 units,
// characters JSON, SQL and file formats treat specially, keys named like Object's own.

/** Characters of 1 to 4 UTF-8 bytes, and those that escape, quote or break lines somewhere. */
const UNITS = [
  "a",
  "Z",
  "é",
  "€",
  "😀",
  '"',
  "'",
  "\\",
  "\n",
  "\r",
  "\t",
  "\u0001",
  "\u001f",
  "\u007f",
  "\u2028",
  "\uFEFF",
  "%",
  "$",
  "{",
  "/",
  " ",
];

const utf8Bytes = (text: string) => Buffer.byteLength(text, "utf8");

/** `unit` repeated to exactly `maxBytes` UTF-8 bytes (padded with "a" when it does not divide). */
function exactlyBytes(unit: string, maxBytes: number): string {
  const whole = unit.repeat(Math.floor(maxBytes / utf8Bytes(unit)));
  return whole + "a".repeat(maxBytes - utf8Bytes(whole));
}

/** Well-formed text without NUL of 1..maxBytes UTF-8 bytes, often at the bound exactly. */
export function textArb(maxBytes: number, units: readonly string[] = UNITS): fc.Arbitrary<string> {
  return fc.oneof(
    fc
      .array(fc.constantFrom(...units), { minLength: 1, maxLength: 40 })
      .map((parts) => parts.join(""))
      .filter((text) => utf8Bytes(text) <= maxBytes),
    fc.constantFrom("😀", "€", "é", "\u2028").map((unit) => exactlyBytes(unit, maxBytes)),
  );
}

/** Every effect id the contract allows: 1..128 of [A-Za-z0-9_-], often 128 long. */
export const effectIdArb: fc.Arbitrary<string> = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/),
  fc.stringMatching(/^[A-Za-z0-9_-]{120,128}$/),
  fc.constantFrom("-", "_", "0", "A", "a", "--", "__proto__", "constructor", "Z".repeat(128)),
);

/** The id with each letter's case swapped: another effect. */
export const swapCase = (id: string) =>
  [...id].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join("");

const SEGMENT_UNITS = UNITS.filter((unit) => unit !== "/");
const segmentArb = textArb(200, SEGMENT_UNITS).filter((s) => s !== "." && s !== "..");

export const nameArb: fc.Arbitrary<string> = fc.oneof(
  fc.array(segmentArb, { minLength: 1, maxLength: 4 }).map((segments) => segments.join("/")),
  fc.constant(exactlyBytes("😀", MAX_NAME_BYTES)),
);

const idArb = textArb(MAX_SCOPE_ID_BYTES);
export const scopeArb: fc.Arbitrary<Scope> = fc.oneof(
  fc.record({ kind: fc.constant("app" as const), app: idArb }),
  fc.record({ kind: fc.constant("user" as const), app: idArb, user: idArb }),
  fc.record({ kind: fc.constant("session" as const), app: idArb, user: idArb, session: idArb }),
);

const OBJECT_KEYS = ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf"];
const keyArb = fc.oneof(
  fc.constantFrom(...OBJECT_KEYS),
  textArb(JOURNAL_LIMITS.maxCorrelationValueBytes),
);

export const correlationArb: fc.Arbitrary<Record<string, string>> = fc
  .uniqueArray(fc.tuple(keyArb, textArb(JOURNAL_LIMITS.maxCorrelationValueBytes)), {
    maxLength: JOURNAL_LIMITS.maxCorrelationEntries,
    selector: ([key]) => key,
  })
  // fromEntries makes own properties of every key, "__proto__" included.
  .map((entries) => Object.fromEntries(entries));

export const ownerArb = textArb(JOURNAL_LIMITS.maxOwnerBytes);

export const receiptArb: fc.Arbitrary<EffectReceipt> = fc.record({
  version: fc.oneof(fc.constant(Number.MAX_SAFE_INTEGER), fc.integer({ min: 1 })),
  sha256: fc.stringMatching(/^[0-9a-f]{64}$/),
  size: fc.oneof(fc.constantFrom(0, Number.MAX_SAFE_INTEGER), fc.nat()),
});

/** Any text a handler's error may carry: NUL, lone surrogates, far past the bound. */
export const errorTextArb: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: "binary", maxLength: 64 }),
  fc.constantFrom("\0", "a\0b", "\uD800", "x\uDC00y", "😀".repeat(JOURNAL_LIMITS.maxErrorBytes)),
  textArb(JOURNAL_LIMITS.maxErrorBytes),
  fc.constant(exactlyBytes("€", JOURNAL_LIMITS.maxErrorBytes + 1)),
);

/** The entries of a record of strings, sorted, own properties only: "__proto__" counts. */
export const entriesOf = (value: Readonly<Record<string, string>> | undefined) =>
  Object.entries(value ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
