import fc from "fast-check";
import { DEFAULT_MIME_TYPE } from "../limits.js";
import type { JsonObject, JsonValue, Scope } from "../types.js";
import { payloadArb } from "./payload.js";
import type { PutInput } from "./put-commands.js";
import { jsonMetadataArb } from "./values.js";

/**
 * Scopes that collide on purpose: the same ids at every kind, ids containing "/" that a
 * naive "app/user/session" path join would confuse, and non-ASCII ids.
 */
export const COLLIDING_SCOPES: readonly Scope[] = Object.freeze([
  { kind: "app", app: "a" },
  { kind: "user", app: "a", user: "u" },
  { kind: "session", app: "a", user: "u", session: "s" },
  { kind: "app", app: "a/u" },
  { kind: "user", app: "a", user: "u/s" },
  { kind: "session", app: "é", user: "😀", session: "a" },
  // The same id in NFC and in NFD, and in another case: three more scopes.
  { kind: "user", app: "a", user: "\u00c5" },
  { kind: "user", app: "a", user: "A\u030a" },
  { kind: "user", app: "a", user: "U" },
]);

/**
 * Names that collide on purpose: prefixes (a, a/b, a/b/c), case, characters whose UTF-16
 * and UTF-8 orders differ (U+FF5A vs U+1F600), prefix conventions and encoded dots.
 */
export const COLLIDING_NAMES: readonly string[] = Object.freeze([
  "a",
  "a/b",
  "a/b/c",
  "ab",
  "A",
  "é",
  "e\u0301",
  "😀",
  "ｚ",
  "\u{10FFFF}",
  "user:a",
  "%2e%2e",
  "a ",
  " a",
]);

export const mimeTypeArb = fc.constantFrom(
  DEFAULT_MIME_TYPE,
  "text/plain",
  "application/json; charset=utf-8",
  "image/png",
);

const jsonLeafArb: fc.Arbitrary<JsonValue> = fc.oneof(
  fc.string({ maxLength: 8, unit: "binary" }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0)),
  fc.boolean(),
  fc.constant(null),
);

/** Small JSON objects (keys may be "__proto__" or astral) within every metadata limit. */
const smallMetadataArb: fc.Arbitrary<JsonObject> = fc.dictionary(
  fc.string({ maxLength: 6, unit: "binary" }),
  fc.oneof(
    jsonLeafArb,
    fc.array(jsonLeafArb, { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 4 }), jsonLeafArb, { maxKeys: 3 }),
  ),
  { maxKeys: 4 },
);

/**
 * Metadata for the model's puts: small objects, or arbitrary JSON over the whole value domain
 * (prototype-named keys, control characters and NUL, deep chains, every finite number).
 */
export const metadataArb: fc.Arbitrary<JsonObject> = fc.oneof(
  { arbitrary: smallMetadataArb, weight: 2 },
  { arbitrary: jsonMetadataArb, weight: 1 },
);

/** One valid name segment: any well-formed text without "/", NUL, and not "." or "..". */
export const segmentArb = fc
  .string({ minLength: 1, maxLength: 6, unit: "binary" })
  .filter((s) => !s.includes("/") && !s.includes("\0") && s !== "." && s !== "..");

/** Valid names of one to three segments, from the whole Unicode range. */
export const nameArb = fc.array(segmentArb, { minLength: 1, maxLength: 3 }).map((s) => s.join("/"));

/** What one put sends: bytes on a log scale of sizes, and optional mimeType and metadata. */
export const putInputArb = (maxSize?: number): fc.Arbitrary<PutInput> =>
  fc.record({
    payload: payloadArb(maxSize),
    mimeType: fc.option(mimeTypeArb, { nil: undefined }),
    metadata: fc.option(metadataArb, { nil: undefined }),
    scribbleInFlight: fc.boolean(),
  });

/** Options for a put of `input`, leaving absent fields out (exactOptionalPropertyTypes). */
export function putOptionsOf(input: Pick<PutInput, "mimeType" | "metadata">): {
  mimeType?: string;
  metadata?: JsonObject;
} {
  return {
    ...(input.mimeType === undefined ? {} : { mimeType: input.mimeType }),
    ...(input.metadata === undefined ? {} : { metadata: input.metadata }),
  };
}

let uniqueCounter = 0;

/** A scope no other check or run uses, so properties can share one service. */
export function freshScope(label: string): Extract<Scope, { kind: "session" }> {
  uniqueCounter += 1;
  return { kind: "session", app: "conformance", user: label, session: `run-${uniqueCounter}` };
}
