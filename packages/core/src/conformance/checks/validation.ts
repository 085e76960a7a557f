import fc from "fast-check";
import type { ArtifactError } from "../../errors.js";
import { MAX_METADATA_BYTES, MAX_METADATA_DEPTH, MAX_METADATA_ENTRIES } from "../../limits.js";
import type { ArtifactService, Scope } from "../../types.js";
import { nameArb, segmentArb } from "../arbitraries.js";
import { check, type LawContext } from "../check.js";
import { expectArtifactError, expectEqual, expectTrue } from "../expect.js";
import { readAllNames, readAllVersions } from "../observe.js";

// Every bad input must be invalid_argument (with detail.field) and change nothing. The
// probe artifact and the scopes a sloppy adapter might write into instead are watched.

const PROBE: Scope = { kind: "session", app: "v", user: "v", session: "v" };
const WATCHED: readonly Scope[] = [
  PROBE,
  { kind: "app", app: "v" },
  { kind: "user", app: "v", user: "v" },
  { kind: "app", app: "x" },
];
const NAME = "probe";
const bytes = new Uint8Array([1, 2, 3]);

type BadCall = readonly [label: string, call: (service: ArtifactService) => Promise<unknown>];

/** Builds objects nested `levels` deep (the top-level object is level 1). */
function nested(levels: number): Record<string, unknown> {
  let node: Record<string, unknown> = {};
  for (let level = 1; level < levels; level++) node = { n: node };
  return node;
}

const entries = (count: number) =>
  Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, i]));
// {"s":"..."} is 8 bytes of JSON around the string.
const metadataOfBytes = (size: number) => ({ s: "x".repeat(size - 8) });

class NotPlain {
  a = 1;
}
const cycle: Record<string, unknown> = {};
cycle.self = cycle;

export const BAD_SCOPES: readonly [string, unknown][] = [
  ["null scope", null],
  ["string scope", "v"],
  ["unknown kind", { kind: "org", app: "v" }],
  ["missing app", { kind: "app" }],
  ["missing user", { kind: "user", app: "v" }],
  ["missing session", { kind: "session", app: "v", user: "v" }],
  ["extra key", { kind: "app", app: "v", user: "v" }],
  ["empty app", { kind: "app", app: "" }],
  ["NUL in app", { kind: "app", app: "v\0" }],
  ["lone surrogate in user", { kind: "user", app: "v", user: "\uD800" }],
  ["non-string session", { kind: "session", app: "v", user: "v", session: 7 }],
  ["257-byte app", { kind: "app", app: `${"é".repeat(128)}x` }],
];

export const BAD_NAMES: readonly [string, unknown][] = [
  ["empty name", ""],
  [". name", "."],
  [".. name", ".."],
  ["trailing ..", "a/.."],
  ["leading ..", "../a"],
  ["middle ..", "a/../b"],
  ["leading /", "/a"],
  ["trailing /", "a/"],
  ["empty segment", "a//b"],
  ["./ segment", "./a"],
  ["NUL", "a\0b"],
  ["lone surrogate", "a\uDC00"],
  ["1,025-byte name (513 two-byte characters)", `${"é".repeat(512)}x`],
  ["number", 42],
  ["null", null],
];

export const BAD_MIME_TYPES: readonly [string, unknown][] = [
  ["no slash", "textplain"],
  ["CR LF", "text/plain\r\nX-Injected: 1"],
  ["LF", "text/\n"],
  ["NUL", "text/\0"],
  ["empty", ""],
  ["256 bytes", `a/${"x".repeat(254)}`],
  ["number", 5],
];

export const BAD_METADATA: readonly [string, unknown][] = [
  ["array", [1]],
  ["null", null],
  ["undefined value", { a: undefined }],
  ["function", { f: () => 1 }],
  ["NaN", { n: Number.NaN }],
  ["Infinity", { n: Number.POSITIVE_INFINITY }],
  ["bigint", { b: 1n }],
  ["cycle", cycle],
  ["Date", { d: new Date(0) }],
  ["class instance", { c: new NotPlain() }],
  ["Map", new Map([["a", 1]])],
  ["symbol key", { [Symbol("s")]: 1 }],
  ["lone surrogate value", { s: "\uD83D" }],
  ["lone surrogate key", { "\uDE00": 1 }],
  // biome-ignore lint/suspicious/noSparseArray: a hole is the bad input
  ["array with a hole", { a: [1, , 2] }],
  ["accessor", { a: Object.defineProperty({}, "x", { get: () => 1, enumerable: true }) }],
  ["non-enumerable key", { a: Object.defineProperty({}, "x", { value: 1, enumerable: false }) }],
  ["array subclass", { a: new (class extends Array {})() }],
  [`more than ${MAX_METADATA_BYTES} bytes`, metadataOfBytes(MAX_METADATA_BYTES + 1)],
  [`more than ${MAX_METADATA_ENTRIES} entries`, entries(MAX_METADATA_ENTRIES + 1)],
  [
    `more than ${MAX_METADATA_ENTRIES} entries over nested lists`,
    { a: new Array(MAX_METADATA_ENTRIES).fill(0) },
  ],
  [`deeper than ${MAX_METADATA_DEPTH} levels`, nested(MAX_METADATA_DEPTH + 1)],
];

export const BAD_TIMEOUTS: readonly unknown[] = [
  0,
  -1,
  300_001,
  Number.NaN,
  "10",
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  // Above the limit once rounded up.
  300_000.5,
];

function badCalls(): BadCall[] {
  const calls: BadCall[] = [];
  for (const [label, scope] of BAD_SCOPES) {
    calls.push([`put with ${label}`, (s) => s.put(scope as Scope, NAME, bytes)]);
    calls.push([`listNames with ${label}`, (s) => s.listNames(scope as Scope)]);
    calls.push([`delete with ${label}`, (s) => s.delete(scope as Scope, NAME, "all")]);
  }
  for (const [label, name] of BAD_NAMES) {
    calls.push([`put with ${label}`, (s) => s.put(PROBE, name as string, bytes)]);
    calls.push([`get with ${label}`, (s) => s.get(PROBE, name as string)]);
    calls.push([`delete with ${label}`, (s) => s.delete(PROBE, name as string, "all")]);
    calls.push([`listVersions with ${label}`, (s) => s.listVersions(PROBE, name as string)]);
  }
  for (const data of ["abc", [1, 2], new ArrayBuffer(2), null, new DataView(new ArrayBuffer(1))]) {
    calls.push([
      `put with data ${Object.prototype.toString.call(data)}`,
      (s) => s.put(PROBE, NAME, data as unknown as Uint8Array),
    ]);
  }
  for (const [label, mimeType] of BAD_MIME_TYPES) {
    calls.push([
      `put with mimeType ${label}`,
      (s) => s.put(PROBE, NAME, bytes, { mimeType: mimeType as string }),
    ]);
  }
  for (const [label, metadata] of BAD_METADATA) {
    calls.push([
      `put with metadata ${label}`,
      (s) => s.put(PROBE, NAME, bytes, { metadata: metadata as never }),
    ]);
  }
  for (const timeoutMs of BAD_TIMEOUTS) {
    calls.push([
      `put with timeoutMs ${String(timeoutMs)}`,
      (s) => s.put(PROBE, NAME, bytes, { timeoutMs: timeoutMs as number }),
    ]);
    calls.push([
      `delete with timeoutMs ${String(timeoutMs)}`,
      (s) => s.delete(PROBE, NAME, 1, { timeoutMs: timeoutMs as number }),
    ]);
  }
  for (const idempotencyKey of ["", "k".repeat(257), "a\0b", 7]) {
    calls.push([
      `put with idempotencyKey ${JSON.stringify(idempotencyKey)}`,
      (s) => s.put(PROBE, NAME, bytes, { idempotencyKey: idempotencyKey as string }),
    ]);
  }
  for (const prefix of ["", "/a", "a//b", "../x", "a\0", 3]) {
    calls.push([
      `listNames with prefix ${JSON.stringify(prefix)}`,
      (s) => s.listNames(PROBE, { prefix: prefix as string }),
    ]);
  }
  calls.push([
    "put with a non-signal",
    (s) => s.put(PROBE, NAME, bytes, { signal: {} as AbortSignal }),
  ]);
  for (const version of [0, -1, 1.5, "1", "LATEST", null]) {
    calls.push([
      `get version ${String(version)}`,
      (s) => s.get(PROBE, NAME, { version: version as number }),
    ]);
    calls.push([
      `head version ${String(version)}`,
      (s) => s.head(PROBE, NAME, { version: version as number }),
    ]);
  }
  for (const selector of [0, -1, 2.5, "everything", undefined, null]) {
    calls.push([
      `delete selector ${String(selector)}`,
      (s) => s.delete(PROBE, NAME, selector as "all"),
    ]);
  }
  for (const limit of [0, -1, 1.5, "10", Number.NaN]) {
    calls.push([
      `listNames limit ${String(limit)}`,
      (s) => s.listNames(PROBE, { limit: limit as number }),
    ]);
    calls.push([
      `listVersions limit ${String(limit)}`,
      (s) => s.listVersions(PROBE, NAME, { limit: limit as number }),
    ]);
  }
  for (const cursor of ["", "a/../b", 5]) {
    calls.push([
      `listNames cursor ${String(cursor)}`,
      (s) => s.listNames(PROBE, { cursor: cursor as string }),
    ]);
  }
  for (const cursor of ["1", 0, -2, 1.5]) {
    calls.push([
      `listVersions cursor ${String(cursor)}`,
      (s) => s.listVersions(PROBE, NAME, { cursor: cursor as number }),
    ]);
  }
  const unknown = { unknownOption: true } as object;
  calls.push([
    "put with an unknown option",
    (s) => s.put(PROBE, NAME, bytes, { mimetype: "text/plain" } as object),
  ]);
  calls.push(["get with an unknown option", (s) => s.get(PROBE, NAME, { versions: 1 } as object)]);
  calls.push(["head with an unknown option", (s) => s.head(PROBE, NAME, unknown)]);
  calls.push([
    "delete with an unknown option",
    (s) => s.delete(PROBE, NAME, "all", { force: true } as object),
  ]);
  calls.push([
    "listNames with an unknown option",
    (s) => s.listNames(PROBE, { limt: 1 } as object),
  ]);
  calls.push(["listVersions with an unknown option", (s) => s.listVersions(PROBE, NAME, unknown)]);
  calls.push(["list with an unknown option", (s) => s.list(PROBE, { limit: 1 } as object)]);
  calls.push([
    "options that are not an object",
    (s) => s.put(PROBE, NAME, bytes, "text/plain" as unknown as object),
  ]);
  return calls;
}

interface Snapshot {
  names: string[][];
  versions: number[];
}

async function snapshot(service: ArtifactService): Promise<Snapshot> {
  const names = await Promise.all(WATCHED.map((scope) => readAllNames(service, scope)));
  const versions = (await readAllVersions(service, PROBE, NAME)).map((m) => m.version);
  return { names, versions };
}

async function expectRejectedAndNothingWritten(
  service: ArtifactService,
  before: Snapshot,
  label: string,
  call: () => Promise<unknown>,
): Promise<void> {
  const error = await expectArtifactError(call, "invalid_argument", label);
  const field = (error as ArtifactError).detail.field;
  expectTrue(
    typeof field === "string" && field.length > 0,
    `${label}: invalid_argument without detail.field`,
  );
  expectEqual(await snapshot(service), before, `${label}: the store changed`);
}

/** Every bad scope, name, data, mimeType, metadata and option is refused and writes nothing. */
async function badInputsAreRefused({ service }: LawContext) {
  await service.put(PROBE, NAME, bytes);
  const before = await snapshot(service);
  for (const [label, call] of badCalls()) {
    await expectRejectedAndNothingWritten(service, before, label, () => call(service));
  }
}

/** Fuzzed names with an empty, . or .. segment, NUL or a lone surrogate are refused. */
async function fuzzedBadNamesAreRefused({ service, property }: LawContext) {
  await service.put(PROBE, NAME, bytes);
  const before = await snapshot(service);
  const poison = fc.constantFrom("", ".", "..", "\0", "\uD800", "a\uDFFFb");
  const badName = fc
    .tuple(fc.array(segmentArb, { maxLength: 3 }), poison, fc.nat())
    .map(([segments, bad, at]) => {
      const all = [...segments];
      all.splice(at % (segments.length + 1), 0, bad);
      return all.join("/");
    });
  await property([badName], async (name) => {
    await expectRejectedAndNothingWritten(service, before, `put ${JSON.stringify(name)}`, () =>
      service.put(PROBE, name, bytes),
    );
  });
}

/** Values exactly at each limit, and every generated valid name, are accepted. */
async function valuesAtTheLimitsAreAccepted({ service, property }: LawContext) {
  const app = "é".repeat(128); // 256 UTF-8 bytes
  const scope: Scope = { kind: "session", app, user: app, session: app };
  const name = `${"é".repeat(511)}xy`; // 1,024 UTF-8 bytes
  const accepted = [
    { mimeType: `a/${"x".repeat(253)}` },
    { metadata: metadataOfBytes(MAX_METADATA_BYTES) },
    { metadata: entries(MAX_METADATA_ENTRIES) },
    { metadata: nested(MAX_METADATA_DEPTH) as never },
    { metadata: Object.assign(Object.create(null), { nullPrototype: true }) },
    { timeoutMs: 300_000 },
    // A timeout computed from a clock is a fraction: rounded up, never refused (long enough
    // for any backend to finish the put well inside it).
    { timeoutMs: 59_999.25 },
    { timeoutMs: 299_999.5 },
  ];
  for (const options of accepted) await service.put(scope, name, bytes, options);
  const stored = await readAllVersions(service, scope, name);
  expectEqual(stored.length, accepted.length, "versions stored at the limits");
  await property([nameArb], async (generated) => {
    await service.put(PROBE, generated, bytes);
  });
}

export const validationLaws = [
  check(
    "validation",
    "every bad scope, name, data, mimeType, metadata and option is invalid_argument and writes nothing",
    badInputsAreRefused,
  ),
  check(
    "validation",
    "fuzzed names with an empty, . or .. segment, NUL or a lone surrogate are rejected",
    fuzzedBadNamesAreRefused,
  ),
  check("validation", "values exactly at each limit are accepted", valuesAtTheLimitsAreAccepted),
];
