import { type ArtifactError, isArtifactError } from "../../errors.js";
import type { ArtifactService, Scope } from "../../types.js";
import { freshScope } from "../arbitraries.js";
import { check, type LawContext } from "../check.js";
import { declaresTransfer } from "../declared-transfer.js";
import { expectArtifactError, expectEqual, expectTrue, fail } from "../expect.js";
import { readAllNames, readAllVersions } from "../observe.js";
import type { Transferring } from "./transfer-support.js";
import { BAD_METADATA, BAD_MIME_TYPES, BAD_NAMES, BAD_SCOPES, BAD_TIMEOUTS } from "./validation.js";

// The validation law's complement: not one bad input per operation that a hand-written
// adapter is likely to check, but every argument of every operation that takes it. An
// adapter that validates in each operation separately forgets one (head's name, list's
// scope, a download's options); one that checks numbers with Number.isInteger or `> 0`
// lets 2**53, NaN or Infinity through to a lookup. A validation failure does no I/O, so
// the ~400 calls cost every adapter about the same; the store is compared once at the end.

const NAME = "probe";
const bytes = new Uint8Array([1, 2, 3]);

/** Every number that is not a positive safe integer, and numbers in other types. */
const BAD_COUNTS: readonly unknown[] = [
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  2 ** 53,
  2 ** 53 + 2,
  Number.MAX_VALUE,
  Number.MIN_VALUE,
  -0,
  0.5,
  1n,
  "2",
  true,
];

type Call = readonly [label: string, call: (service: ArtifactService) => Promise<unknown>];

function transferOf(service: ArtifactService): Transferring | undefined {
  const streams =
    declaresTransfer(service, "streamingUpload") || declaresTransfer(service, "streamingDownload");
  return streams ? service : undefined;
}

const label = (value: unknown) =>
  typeof value === "bigint"
    ? `${value}n`
    : typeof value === "string"
      ? JSON.stringify(value)
      : String(value);

function everyOperationsCalls(scope: Scope, transfer: Transferring | undefined): Call[] {
  const calls: Call[] = [];
  const upload = transfer?.capabilities().transfer?.streamingUpload === true;
  const download = transfer?.capabilities().transfer?.streamingDownload === true;
  // Operations that take a scope and a name, with every other argument good.
  const scoped: [string, (s: ArtifactService, scope: Scope, name: string) => Promise<unknown>][] = [
    ["put", (s, sc, n) => s.put(sc, n, bytes)],
    ["get", (s, sc, n) => s.get(sc, n)],
    ["head", (s, sc, n) => s.head(sc, n)],
    ["delete", (s, sc, n) => s.delete(sc, n, "all")],
    ["listVersions", (s, sc, n) => s.listVersions(sc, n)],
  ];
  if (upload)
    scoped.push(["openUpload", (_s, sc, n) => (transfer as Transferring).openUpload(sc, n)]);
  if (download)
    scoped.push(["openDownload", (_s, sc, n) => (transfer as Transferring).openDownload(sc, n)]);
  for (const [op, call] of scoped) {
    for (const [what, bad] of BAD_SCOPES)
      calls.push([`${op} with ${what}`, (s) => call(s, bad as Scope, NAME)]);
    for (const [what, bad] of BAD_NAMES)
      calls.push([`${op} with ${what}`, (s) => call(s, scope, bad as string)]);
  }
  for (const [what, bad] of BAD_SCOPES) {
    calls.push([`list with ${what}`, (s) => s.list(bad as Scope)]);
    calls.push([`listNames with ${what}`, (s) => s.listNames(bad as Scope)]);
  }
  // Every count, version, cursor and limit.
  for (const bad of BAD_COUNTS) {
    const n = bad as number;
    calls.push(
      [`get version ${label(bad)}`, (s) => s.get(scope, NAME, { version: n })],
      [`head version ${label(bad)}`, (s) => s.head(scope, NAME, { version: n })],
      [`delete selector ${label(bad)}`, (s) => s.delete(scope, NAME, n)],
      [`listVersions cursor ${label(bad)}`, (s) => s.listVersions(scope, NAME, { cursor: n })],
      [`listVersions limit ${label(bad)}`, (s) => s.listVersions(scope, NAME, { limit: n })],
      [`listNames limit ${label(bad)}`, (s) => s.listNames(scope, { limit: n })],
      [`listScopes limit ${label(bad)}`, (s) => s.listScopes({ limit: n })],
    );
    if (upload) {
      calls.push([
        `openUpload maxBytes ${label(bad)}`,
        () => (transfer as Transferring).openUpload(scope, NAME, { maxBytes: n }),
      ]);
    }
    if (download) {
      const open = (options: object) => () =>
        (transfer as Transferring).openDownload(scope, NAME, options);
      calls.push(
        [`openDownload version ${label(bad)}`, open({ version: n })],
        [
          `openDownload range offset ${label(bad)}`,
          open({ range: { offset: n === 0 ? -1 : n, length: 1 } }),
        ],
        [
          `openDownload range length ${label(bad)}`,
          open({ range: { offset: 0, length: n === 0 ? -1 : n } }),
        ],
      );
    }
  }
  // The content of a streamed upload is checked as a put's is.
  if (upload) {
    const open = (options: object) => () =>
      (transfer as Transferring).openUpload(scope, NAME, options);
    for (const [what, bad] of BAD_MIME_TYPES)
      calls.push([`openUpload mimeType ${what}`, open({ mimeType: bad })]);
    for (const [what, bad] of BAD_METADATA)
      calls.push([`openUpload metadata ${what}`, open({ metadata: bad })]);
    for (const bad of ["", "k".repeat(257), "a\0b", 7]) {
      calls.push([`openUpload idempotencyKey ${label(bad)}`, open({ idempotencyKey: bad })]);
    }
  }
  // Every operation's deadline options.
  for (const bad of BAD_TIMEOUTS) {
    const timeoutMs = bad as number;
    calls.push(
      [`get timeoutMs ${label(bad)}`, (s) => s.get(scope, NAME, { timeoutMs })],
      [`head timeoutMs ${label(bad)}`, (s) => s.head(scope, NAME, { timeoutMs })],
      [`listNames timeoutMs ${label(bad)}`, (s) => s.listNames(scope, { timeoutMs })],
      [`listVersions timeoutMs ${label(bad)}`, (s) => s.listVersions(scope, NAME, { timeoutMs })],
      [`list timeoutMs ${label(bad)}`, (s) => s.list(scope, { timeoutMs })],
      [`listScopes timeoutMs ${label(bad)}`, (s) => s.listScopes({ timeoutMs })],
    );
    if (upload)
      calls.push([
        `openUpload timeoutMs ${label(bad)}`,
        () => (transfer as Transferring).openUpload(scope, NAME, { timeoutMs }),
      ]);
    if (download)
      calls.push([
        `openDownload timeoutMs ${label(bad)}`,
        () => (transfer as Transferring).openDownload(scope, NAME, { timeoutMs }),
      ]);
  }
  for (const signal of [{}, "abort", new EventTarget()]) {
    calls.push([
      `get with a non-signal ${label(signal)}`,
      (s) => s.get(scope, NAME, { signal: signal as AbortSignal }),
    ]);
    calls.push([
      `listScopes with a non-signal ${label(signal)}`,
      (s) => s.listScopes({ signal: signal as AbortSignal }),
    ]);
  }
  if (download) {
    calls.push([
      "openDownload with an unknown option",
      () => (transfer as Transferring).openDownload(scope, NAME, { limit: 1 } as object),
    ]);
  }
  return calls;
}

/** Every operation checks every argument it takes: invalid_argument naming it, nothing written. */
async function everyOperationValidatesEveryArgument({ service }: LawContext) {
  const scope = freshScope("validation-ops");
  await service.put(scope, NAME, bytes);
  const before = {
    names: await readAllNames(service, scope),
    versions: await readAllVersions(service, scope, NAME),
  };
  for (const [what, call] of everyOperationsCalls(scope, transferOf(service))) {
    const error = await expectArtifactError(() => call(service), "invalid_argument", what);
    const field = (error as ArtifactError).detail.field;
    expectTrue(
      typeof field === "string" && field.length > 0,
      `${what}: invalid_argument without detail.field`,
    );
  }
  expectEqual(
    {
      names: await readAllNames(service, scope),
      versions: await readAllVersions(service, scope, NAME),
    },
    before,
    "the store after every refused call",
  );
  await subMillisecondTimeoutsAreRoundedUp(service, scope);
}

/**
 * A timeout above 0 and below 1 ms is rounded up to 1 ms, never refused: the call succeeds
 * or times out (an adapter that floors it, then checks it, refuses a valid deadline).
 */
async function subMillisecondTimeoutsAreRoundedUp(service: ArtifactService, scope: Scope) {
  for (const timeoutMs of [0.5, 0.999, Number.MIN_VALUE]) {
    const calls: Call[] = [
      [`put timeoutMs ${timeoutMs}`, (s) => s.put(scope, "rounded", bytes, { timeoutMs })],
      [`get timeoutMs ${timeoutMs}`, (s) => s.get(scope, NAME, { timeoutMs })],
      [`listNames timeoutMs ${timeoutMs}`, (s) => s.listNames(scope, { timeoutMs })],
    ];
    for (const [what, call] of calls) {
      await call(service).catch((error: unknown) => {
        if (!isArtifactError(error, "timeout"))
          fail(`${what}: expected success or timeout, got ${String(error)}`);
      });
    }
  }
}

export const validationOpsLaws = [
  check(
    "validation",
    "every operation (head, list, openUpload, openDownload, listScopes too) checks every argument it takes, every non-integer and unsafe number included, and rejects (never throws) with invalid_argument; a timeout below 1 ms is rounded up, not refused",
    everyOperationValidatesEveryArgument,
  ),
];
