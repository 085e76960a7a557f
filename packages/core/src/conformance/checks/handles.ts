import fc from "fast-check";
import type { ArtifactService, Scope } from "../../types.js";
import { freshScope } from "../arbitraries.js";
import { check, type LawContext, skip } from "../check.js";
import {
  ConformanceFailure,
  expectArtifactError,
  expectEqual,
  expectTrue,
  fail,
} from "../expect.js";
import { artifactCommands, MAX_COMMANDS } from "../generators.js";
import { type HandlesHolder, ThroughHandleCommand, withHandles } from "../handles.js";
import { ReferenceModel } from "../model.js";
import {
  expectArtifact,
  expectEveryViewAgrees,
  expectRecord,
  readAllNames,
  readAllVersions,
} from "../observe.js";
import { seededBytes } from "../payload.js";
import { expectNamesAtEverySize, fill, roomInOneScope, scaleNames, shuffled } from "../scale.js";
import { putTracked } from "./state.js";

// Two live instances on one backend (the subject's openAnother): what one writes, the other
// sees at once in every view; versions allocated through both never collide; keys bound
// through one hold through the other. A per-instance cache that goes stale fails here.

const NAME = "state/artifact"; // the name putTracked and expectEveryViewAgrees work on

/** Every view through every handle agrees with the model, listNames included. */
async function expectEveryHandleAgrees(
  handles: readonly ArtifactService[],
  model: ReferenceModel,
  scope: Scope,
  step: string,
) {
  for (const [i, handle] of handles.entries()) {
    await expectEveryViewAgrees(handle, model, scope, NAME, `${step}, seen through handle ${i}`);
    expectEqual(
      await readAllNames(handle, scope, 2),
      model.names(scope),
      `${step}, seen through handle ${i}: listNames`,
    );
  }
}

/**
 * Puts and deletes through one handle are seen by the other at once, in head, get,
 * listVersions, list and listNames, after every kind of delete; each handle reads before the
 * other writes, so a cache filled by that read and not refreshed is caught.
 */
async function writesSeenAcrossHandles(handles: readonly ArtifactService[]) {
  const [a, b] = handles as [ArtifactService, ArtifactService];
  const scope = freshScope("handles");
  const model = new ReferenceModel();
  await expectEveryHandleAgrees(handles, model, scope, "before any put");
  const steps: [string, ArtifactService, (service: ArtifactService) => Promise<unknown>][] = [
    ["a put through handle 0", a, (s) => putTracked(s, model, scope, 24, 1)],
    ["a put through handle 1", b, (s) => putTracked(s, model, scope, 40, 2)],
    ["a put through handle 0", a, (s) => putTracked(s, model, scope, 8, 3)],
    ['delete("latest") through handle 1', b, (s) => remove(s, model, scope, "latest")],
    ["a put through handle 1", b, (s) => putTracked(s, model, scope, 16, 4)],
    ["deleting the lowest version through handle 0", a, (s) => remove(s, model, scope, "lowest")],
    [
      "deleting the top version by number through handle 1",
      b,
      (s) => remove(s, model, scope, "top"),
    ],
    ['delete("all") through handle 0', a, (s) => remove(s, model, scope, "all")],
    ["a put through handle 1 after delete all", b, (s) => putTracked(s, model, scope, 12, 5)],
  ];
  for (const [step, handle, write] of steps) {
    await write(handle);
    await expectEveryHandleAgrees(handles, model, scope, `after ${step}`);
  }
}

async function remove(
  service: ArtifactService,
  model: ReferenceModel,
  scope: Scope,
  which: "latest" | "all" | "lowest" | "top",
) {
  const live = model.live(scope, NAME);
  const selector =
    which === "lowest"
      ? (live[0]?.version ?? 1)
      : which === "top"
        ? (live.at(-1)?.version ?? 1)
        : which;
  model.delete(scope, NAME, selector);
  await service.delete(scope, NAME, selector);
}

/** Concurrent puts through two handles to one name get distinct versions, all listed by both. */
async function versionsNeverCollide(handles: readonly ArtifactService[]) {
  const scope = freshScope("handles-versions");
  const name = "contended";
  const puts = handles.flatMap((handle, h) =>
    Array.from({ length: 6 }, (_, i) => handle.put(scope, name, seededBytes(32, h * 10 + i))),
  );
  const versions = (await Promise.all(puts)).map((meta) => meta.version);
  expectEqual(new Set(versions).size, versions.length, `distinct versions ${versions.join(",")}`);
  const sorted = [...versions].sort((x, y) => x - y);
  for (const [h, handle] of handles.entries()) {
    const listed = (await readAllVersions(handle, scope, name)).map((meta) => meta.version);
    expectEqual(listed, sorted, `every version, listed through handle ${h}`);
  }
  const [a, b] = handles as [ArtifactService, ArtifactService];
  await a.delete(scope, name, "all");
  const next = await b.put(scope, name, seededBytes(8, 99));
  expectTrue(
    next.version > (sorted.at(-1) ?? 0),
    `a put through handle 1 after delete("all") through handle 0: version ${next.version} is not above ${sorted.at(-1)}`,
  );
}

/** How the handle that put above the other removes what it put, in a stale-allocation case. */
type AboveRemoval = "all" | "latest" | "top" | "both by number";

/**
 * A handle that allocates from what it cached (a high-water hint, a latest, a counter) after
 * the other handle put above it and then deleted: x puts, y puts above it, y deletes its put
 * (delete "all", "latest", the top by number, or both versions by number, emptying the name),
 * and x puts again. The new version is above every version ever handed out, and head(latest),
 * get and listVersions through both handles show it as the model does. Each case is on a fresh
 * scope, so each handle's first put there is its first sight of the name; both role orders.
 */
async function allocationAfterTheOtherDeleted(handles: readonly ArtifactService[]) {
  const [a, b] = handles as [ArtifactService, ArtifactService];
  const removals: AboveRemoval[] = ["all", "latest", "top", "both by number"];
  const roles: [ArtifactService, ArtifactService, string][] = [
    [b, a, "handle 1 puts, handle 0 puts above it"],
    [a, b, "handle 0 puts, handle 1 puts above it"],
  ];
  let seed = 0;
  for (const [x, y, order] of roles) {
    for (const removal of removals) {
      const scope = freshScope("handles-stale");
      const model = new ReferenceModel();
      const own = await putTracked(x, model, scope, 16, ++seed);
      const above = await putTracked(y, model, scope, 24, ++seed);
      if (removal === "both by number") {
        await removeVersion(y, model, scope, own);
        await removeVersion(y, model, scope, above);
      } else {
        await remove(y, model, scope, removal);
      }
      const step = `${order} and deletes (${removal}), then the first puts again`;
      await putTracked(x, model, scope, 8, ++seed).catch((error: unknown) => {
        if (error instanceof ConformanceFailure) fail(`${step}: ${error.message}`);
        throw error;
      });
      await expectLatestThroughEach(handles, model, scope, step);
    }
  }
}

async function removeVersion(
  service: ArtifactService,
  model: ReferenceModel,
  scope: Scope,
  version: number,
) {
  model.delete(scope, NAME, version);
  await service.delete(scope, NAME, version);
}

/** head(latest), get(latest) and listVersions through every handle, as the model has them. */
async function expectLatestThroughEach(
  handles: readonly ArtifactService[],
  model: ReferenceModel,
  scope: Scope,
  step: string,
) {
  const latest = model.latest(scope, NAME);
  if (!latest) fail(`${step}: the model has no latest version`);
  const live = model.live(scope, NAME).map((v) => v.version);
  for (const [h, handle] of handles.entries()) {
    const seen = `${step}, seen through handle ${h}`;
    expectRecord(await handle.head(scope, NAME), scope, NAME, latest, `${seen}: head latest`);
    expectArtifact(await handle.get(scope, NAME), scope, NAME, latest, `${seen}: get latest`);
    const listed = (await readAllVersions(handle, scope, NAME)).map((meta) => meta.version);
    expectEqual(listed, live, `${seen}: listVersions`);
  }
}

/** A key bound through one handle holds through the other, before and after its deletion. */
async function keysHoldAcrossHandles(handles: readonly ArtifactService[]) {
  const [a, b] = handles as [ArtifactService, ArtifactService];
  const scope = freshScope("handles-keys");
  const name = "keyed";
  const options = { idempotencyKey: "call-1", metadata: { n: 1 } };
  const first = await a.put(scope, name, seededBytes(50, 1), options);
  const retry = await b.put(scope, name, seededBytes(50, 1), { ...options, metadata: { n: 1 } });
  expectEqual(retry.version, first.version, "a retry through handle 1: the bound version");
  await expectArtifactError(
    () => b.put(scope, name, seededBytes(50, 2), options),
    "invalid_argument",
    "another payload under the key through handle 1",
  );
  await b.delete(scope, name, first.version);
  await expectArtifactError(
    () => a.put(scope, name, seededBytes(50, 1), options),
    "not_found",
    "a retry through handle 0 once handle 1 deleted the bound version",
  );
  expectEqual(await readAllVersions(a, scope, name), [], "nothing was written by the retries");
}

/** Names created through two handles at once, past index pages of 128 and 256 names. */
const NAMES_THROUGH_TWO = 300;

/**
 * Hundreds of names created concurrently through two handles (each handle's puts interleaved
 * with the other's) are all listed, in UTF-8 order, through both handles at several page
 * sizes; then half are deleted, through both handles, and both agree again.
 */
async function namesThroughTwoHandlesAtScale({ service, fresh }: LawContext) {
  const room = roomInOneScope(service, false);
  if (room < NAMES_THROUGH_TWO) {
    return skip(`the declared bounds hold ${room} artifacts in one scope`);
  }
  await fresh((holder) => withHandles(holder, 1, createAndListNamesThroughTwo));
  return undefined;
}

async function createAndListNamesThroughTwo(handles: readonly ArtifactService[]) {
  const [a, b] = handles as [ArtifactService, ArtifactService];
  const scope = freshScope("handles-names");
  const names = scaleNames(NAMES_THROUGH_TWO, 7);
  const through = (i: number) => (i % 2 === 0 ? a : b);
  await fill(shuffled(names, 7), (name, i) => through(i).put(scope, name, Uint8Array.of(i & 0xff)));
  const { maxPageLimit } = a.capabilities().pagination;
  const sizes = [...new Set([1, 7, Math.min(100, maxPageLimit), maxPageLimit])];
  for (const [h, handle] of handles.entries()) {
    await expectNamesAtEverySize(
      handle,
      scope,
      names,
      sizes,
      `${NAMES_THROUGH_TWO} names, handle ${h}`,
    );
  }
  const kept = names.filter((_, i) => i % 2 === 1);
  await fill(names, async (name, i) => {
    if (i % 2 === 0) await through(i + 1).delete(scope, name, "all");
  });
  for (const [h, handle] of handles.entries()) {
    await expectNamesAtEverySize(handle, scope, kept, sizes, `half deleted, handle ${h}`);
  }
}

/**
 * Random model sequences (as the model law's) with each command through one of two handles:
 * every reply matches the model, whichever handle wrote what it reads.
 */
async function sequencesThroughTwoHandles({ fresh, property, options }: LawContext) {
  const picks = fc.array(fc.nat(1), { minLength: MAX_COMMANDS, maxLength: MAX_COMMANDS });
  await property(
    [artifactCommands({ reopen: false }, options.replayPath), picks],
    (commands, handleOf) =>
      fresh((holder) =>
        withHandles(holder, 1, (handles) => {
          const real: HandlesHolder = { ...holder, handles };
          const through = [...commands].map(
            (command, i) => new ThroughHandleCommand(command, handleOf[i] ?? 0),
          );
          return fc.asyncModelRun(() => ({ model: new ReferenceModel(), real }), through);
        }),
      ),
    { scale: 1 / 2, min: 5 },
  );
}

const onTwoHandles =
  (body: (handles: readonly ArtifactService[]) => Promise<void>) =>
  ({ fresh }: LawContext) =>
    fresh((holder) => withHandles(holder, 1, body));

export const handleLaws = [
  check(
    "handles",
    "puts and deletes through one handle are seen by the other at once in head, get, listVersions, list and listNames",
    onTwoHandles(writesSeenAcrossHandles),
    { needs: ["another"] },
  ),
  check(
    "handles",
    "a put through one handle after the other put above it and deleted that (all, latest, the top by number, the whole name) gets a version above every one handed out, latest through both",
    onTwoHandles(allocationAfterTheOtherDeleted),
    { needs: ["another"] },
  ),
  check(
    "handles",
    "concurrent puts through two handles get distinct versions, listed by both; the high-water holds across them",
    onTwoHandles(versionsNeverCollide),
    { needs: ["another"] },
  ),
  check(
    "handles",
    "an idempotency key bound through one handle holds through the other, and after its version is deleted there",
    onTwoHandles(keysHoldAcrossHandles),
    { needs: ["another"] },
  ),
  check(
    "handles",
    "300 names created concurrently through two handles are all listed by both at several page sizes, and again after half are deleted",
    namesThroughTwoHandlesAtScale,
    { needs: ["another"] },
  ),
  check(
    "handles",
    "random model sequences with each command through one of two handles match the reference model",
    sequencesThroughTwoHandles,
    { needs: ["another"] },
  ),
];
