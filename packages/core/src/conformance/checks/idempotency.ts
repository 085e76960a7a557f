import { type ArtifactError, isArtifactError } from "../../errors.js";
import type { ArtifactMeta, ArtifactService, PutOptions, Scope } from "../../types.js";
import { freshScope } from "../arbitraries.js";
import { check, type LawContext } from "../check.js";
import { expectArtifactError, expectEqual, expectTrue, fail } from "../expect.js";
import { withHandles } from "../handles.js";
import { readAllVersions } from "../observe.js";
import { seededBytes } from "../payload.js";

// Idempotent retries (PutOptions.idempotencyKey): within one (scope, name) the first put
// that publishes with a key binds it to its version for good; a retry writes nothing and
// returns that version, a different payload under the key is invalid_argument, and once the
// bound version is deleted every put under the key is not_found, whatever its payload.

const NAME = "idempotent/report.md";
const KEY = "tool-call-17";

const payload = (seed: number) => seededBytes(300, seed);

async function versionsOf(service: ArtifactService, scope: Scope, name = NAME) {
  return (await readAllVersions(service, scope, name)).map((meta) => meta.version);
}

/** The retry's record is the first put's record, key included. */
function expectSameRecord(retry: ArtifactMeta, first: ArtifactMeta, what: string) {
  for (const field of ["version", "size", "sha256", "mimeType", "createdAt"] as const) {
    expectEqual(retry[field], first[field], `${what}: ${field} of the bound version`);
  }
  expectEqual(retry.idempotencyKey, KEY, `${what}: the record's idempotencyKey`);
}

/**
 * Puts (and deletes) under another name until the store stamps a createdAt past `since`, so
 * that a retry answered with its own time instead of the bound version's shows: within one
 * millisecond the two agree by chance. Waits on the store's own clock, not on a timer; a
 * store whose clock does not move (time under the subject's control) just stops after a few.
 */
async function untilTheStoreClockPasses(service: ArtifactService, scope: Scope, since: number) {
  for (let tries = 0; tries < 500; tries++) {
    const tick = await service.put(scope, `${NAME}.tick`, new Uint8Array(0));
    await service.delete(scope, `${NAME}.tick`, tick.version);
    if (tick.createdAt > since) return;
  }
}

/** A retry with the same key in the same scope and name returns the first version, writes nothing. */
async function retryReturnsTheFirstVersion({ service }: LawContext) {
  const scope = freshScope("idempotent-retry");
  const options: PutOptions = {
    mimeType: "text/markdown",
    metadata: { step: 1 },
    idempotencyKey: KEY,
  };
  const first = await service.put(scope, NAME, payload(1), options);
  expectEqual(first.idempotencyKey, KEY, "the first put's record: idempotencyKey");
  await untilTheStoreClockPasses(service, scope, first.createdAt);
  const retry = await service.put(scope, NAME, payload(1), { ...options, metadata: { step: 1 } });
  expectSameRecord(retry, first, "a retry with the same key and payload");
  expectEqual(await versionsOf(service, scope), [first.version], "versions after the retry");
  const other = await service.put(scope, NAME, payload(2));
  const late = await service.put(scope, NAME, payload(1), options);
  expectSameRecord(late, first, "a retry after a newer version");
  expectEqual(
    await versionsOf(service, scope),
    [first.version, other.version],
    "versions after a retry that follows a newer put",
  );
  expectEqual(
    (await service.get(scope, NAME)).version,
    other.version,
    "latest after a late retry (the retry publishes nothing)",
  );
  await service.delete(scope, NAME, first.version);
  const afterDelete = await expectArtifactError(
    () => service.put(scope, NAME, payload(1), options),
    "not_found",
    "a retry whose bound version was deleted",
  );
  expectEqual(
    (afterDelete as ArtifactError).detail.version,
    first.version,
    "detail.version of the not_found",
  );
  expectEqual(await versionsOf(service, scope), [other.version], "versions after that retry");
  const empty = await service.put(scope, "empty", new Uint8Array(0), { idempotencyKey: KEY });
  const emptyAgain = await service.put(scope, "empty", new Uint8Array(0), { idempotencyKey: KEY });
  expectSameRecord(emptyAgain, empty, "a retry of a keyed put of 0 bytes");
}

/** A different payload (bytes, mimeType or metadata) under a bound key is refused. */
async function differentPayloadIsRefused({ service }: LawContext) {
  const scope = freshScope("idempotent-conflict");
  const options: PutOptions = { mimeType: "text/plain", metadata: { a: 1 }, idempotencyKey: KEY };
  const first = await service.put(scope, NAME, payload(3), options);
  const differing: [string, Uint8Array, PutOptions][] = [
    ["other bytes", payload(4), options],
    ["one byte more", seededBytes(301, 3), options],
    ["another mimeType", payload(3), { ...options, mimeType: "text/markdown" }],
    ["other metadata", payload(3), { ...options, metadata: { a: 2 } }],
    ["no metadata", payload(3), { mimeType: "text/plain", idempotencyKey: KEY }],
  ];
  for (const [what, data, differs] of differing) {
    const error = await expectArtifactError(
      () => service.put(scope, NAME, data, differs),
      "invalid_argument",
      `a put with ${what} under a bound key`,
    );
    expectEqual((error as ArtifactError).detail.field, "idempotencyKey", `${what}: detail.field`);
  }
  expectEqual(await versionsOf(service, scope), [first.version], "nothing was written");
}

/**
 * Once the bound version is deleted (by number, as latest, or with all), a put under its key is
 * not_found whatever its payload: deletion is judged before the payload.
 */
async function deletedVersionIsNotFoundWhateverThePayload({ service }: LawContext) {
  // A large record too (12 KB of metadata, a 240-byte mimeType): an adapter may store a
  // record that large apart from a small one's (object metadata holds about 8 KiB), and
  // every way it stores a keyed version must remember the key once the version is deleted.
  for (const size of ["small", "large"] as const) await deletedKeyRetries(service, size);
}

async function deletedKeyRetries(service: ArtifactService, size: "small" | "large") {
  const large = size === "large";
  const base: PutOptions = {
    mimeType: large ? `text/${"x".repeat(240)}` : "text/plain",
    metadata: large ? { a: 1, note: "m".repeat(12_000) } : { a: 1 },
    idempotencyKey: KEY,
  };
  const retries: [string, Uint8Array, PutOptions][] = [
    ["the same payload", payload(10), base],
    ["other bytes", payload(11), base],
    ["another mimeType", payload(10), { ...base, mimeType: "text/markdown" }],
    ["other metadata", payload(10), { ...base, metadata: { a: 2 } }],
  ];
  // A large record by number and by "all" (a listing, which may carry less than a head).
  const selectors = large ? (["number", "all"] as const) : (["number", "latest", "all"] as const);
  for (const selector of selectors) {
    const scope = freshScope(`idempotent-deleted-${selector}-${size}`);
    const first = await service.put(scope, NAME, payload(10), base);
    await service.delete(scope, NAME, selector === "number" ? first.version : selector);
    for (const [what, data, options] of retries) {
      const error = await expectArtifactError(
        () => service.put(scope, NAME, data, options),
        "not_found",
        `a put with ${what} under a key whose ${size} version was deleted (${selector})`,
      );
      expectEqual(
        (error as ArtifactError).detail.version,
        first.version,
        `${what}, ${size} record deleted (${selector}): detail.version of the not_found`,
      );
    }
    expectEqual(
      await versionsOf(service, scope),
      [],
      `${size} record deleted (${selector}): nothing was written`,
    );
  }
}

/** Keys are per scope and name: the same key elsewhere is another key. */
async function keysArePerScopeAndName({ service }: LawContext) {
  const base = freshScope("idempotent-keys");
  const joined: Scope = { kind: "session", app: base.app, user: `${base.user}/x`, session: "y" };
  const other: Scope = {
    kind: "session",
    app: base.app,
    user: base.user,
    session: `x/${base.session}`,
  };
  const options: PutOptions = { idempotencyKey: KEY };
  const first = await service.put(base, NAME, payload(5), options);
  for (const [scope, name, what] of [
    [base, `${NAME}.v2`, "another name"],
    [joined, NAME, "another scope"],
    [other, NAME, "a scope whose ids join like the first"],
  ] as const) {
    const meta = await service.put(scope, name, payload(6), options);
    expectEqual(meta.sha256 === first.sha256, false, `${what}: a new version with its own bytes`);
    expectEqual(await versionsOf(service, scope, name), [meta.version], `${what}: versions`);
  }
  expectEqual(await versionsOf(service, base), [first.version], "the first name is untouched");
}

/** A bound key survives reopen. */
async function keySurvivesReopen(context: LawContext) {
  const scope = freshScope("idempotent-reopen");
  const options: PutOptions = { metadata: { n: 1 }, idempotencyKey: KEY };
  const first = await context.service.put(scope, NAME, payload(7), options);
  const service = await context.reopen();
  const retry = await service.put(scope, NAME, payload(7), { ...options, metadata: { n: 1 } });
  expectSameRecord(retry, first, "a retry after reopen");
  await expectArtifactError(
    () => service.put(scope, NAME, payload(8), options),
    "invalid_argument",
    "another payload under the key after reopen",
  );
  expectEqual(await versionsOf(service, scope), [first.version], "versions after reopen");
}

const RACE_ROUNDS = 10;
const RACERS = 8;

/**
 * One round of racing keyed puts, spread over the handles, on a name that is new or (when
 * `existing`) already holds a version: one version is published by the key, and every put
 * that succeeds reports it.
 */
async function raceKeyedPuts(
  handles: readonly ArtifactService[],
  scope: Scope,
  name: string,
  existing: boolean,
) {
  const first = handles[0] as ArtifactService;
  const before = existing ? [(await first.put(scope, name, payload(1))).version] : [];
  const data = payload(9);
  const outcomes = await Promise.allSettled(
    Array.from({ length: RACERS }, (_, racer) =>
      (handles[racer % handles.length] as ArtifactService).put(scope, name, data.slice(), {
        idempotencyKey: KEY,
      }),
    ),
  );
  const versions = new Set<number>();
  for (const outcome of outcomes) {
    if (outcome.status === "fulfilled") versions.add(outcome.value.version);
    else if (!isArtifactError(outcome.reason))
      fail(`a concurrent put failed with ${String(outcome.reason)}`);
  }
  expectTrue(
    versions.size === 1,
    `concurrent puts with one key on "${name}" reported versions ${[...versions]}`,
  );
  expectEqual(
    await versionsOf(first, scope, name),
    [...before, ...versions],
    `one version of "${name}" published by the key`,
  );
}

/**
 * Concurrent puts with one key publish one version, and every one that succeeds reports it.
 * A key looked up outside the name's lock loses only when two racers both look before either
 * binds, and only on a name that already exists (creating the name queues the racers): a
 * postgres copy built that way passed a whole CI run against one round on a new name. Ten
 * rounds, half on names that already hold a version, through two handles (two connection
 * pools) when the subject opens another.
 */
async function concurrentPutsPublishOnce({ hooks, fresh }: LawContext) {
  const scope = freshScope("idempotent-race");
  return fresh(async (holder) => {
    const rounds = async (handles: readonly ArtifactService[]) => {
      for (let round = 0; round < RACE_ROUNDS; round++) {
        await raceKeyedPuts(handles, scope, `${NAME}-${round}`, round % 2 === 1);
      }
    };
    if (hooks.another && holder.subject.openAnother) await withHandles(holder, 1, rounds);
    else await rounds([holder.service]);
  });
}

export const idempotencyLaws = [
  check(
    "idempotency",
    "a retry with the same key in the same scope and name returns the first version and writes nothing, for 0 bytes too",
    retryReturnsTheFirstVersion,
  ),
  check(
    "idempotency",
    "a different payload (bytes, mimeType or metadata) under a bound key is invalid_argument and writes nothing",
    differentPayloadIsRefused,
  ),
  check(
    "idempotency",
    "once the bound version is deleted, a put under its key is not_found whatever its payload, for a small record and one of 12 KB",
    deletedVersionIsNotFoundWhateverThePayload,
  ),
  check("idempotency", "keys are per scope and name", keysArePerScopeAndName),
  check("idempotency", "a bound key survives reopen", keySurvivesReopen, { needs: ["reopen"] }),
  check(
    "idempotency",
    "concurrent puts with one key publish one version, reported by every put that succeeds",
    concurrentPutsPublishOnce,
  ),
];
