import {
  ArtifactError,
  type ArtifactMeta,
  type ArtifactService,
  allVersions,
  isArtifactError,
} from "@artifact-kit/core";
import { expect } from "vitest";
import { artifactEffectHandler } from "../artifact-handler.js";
import { journalArtifacts } from "../journaled.js";
import type { EffectHandler } from "../reconcile.js";
import type { EffectRecord } from "../types.js";
import { refusalOf } from "./refusal-laws.js";
import {
  type EffectJournalConformanceOptions,
  intent,
  LEASE,
  type Register,
  SCOPE,
} from "./support.js";
import {
  bytes,
  lossyService,
  overriding,
  RETRY,
  receiptOf,
  type World,
  withWorld,
} from "./world.js";

// The reconciler and the artifact handler when the service fails, pages or is slow: nothing
// is settled on a guess, every failure is retried on its backoff, every page is read.

/** The service, whose reads and deletes fail as an outage would while `down` names them. */
function failingService(service: ArtifactService) {
  const state = { down: new Set<string>() };
  let wrapped = service;
  for (const method of ["head", "listVersions", "delete"] as const) {
    const real = (service[method] as (...args: unknown[]) => Promise<unknown>).bind(service);
    wrapped = overriding(wrapped, method, async (...args: unknown[]) => {
      if (state.down.has(method)) throw new ArtifactError("unavailable", `${method} is down`);
      return real(...args);
    });
  }
  return { service: wrapped, state };
}

/** The service, whose version pages hold at most `size` items unless a caller asks for more. */
function pagingService(service: ArtifactService, size: number): ArtifactService {
  return overriding(
    service,
    "listVersions",
    (scope: never, name: string, options: { limit?: number } = {}) =>
      service.listVersions(scope, name, { ...options, limit: options.limit ?? size }),
  );
}

/** Journaled writes left pending in each way a judgement must read the service for. */
async function leavePending(world: World) {
  const { journal, service } = world;
  const lossy = lossyService(service);
  const writer = journalArtifacts(lossy.service, SCOPE, { journal, ...LEASE });
  await service.put(SCOPE, "del-lost", bytes("target"));
  await service.put(SCOPE, "del-never", bytes("target"));
  await writer.put("applied", bytes("applied"), { effectId: "applied" });
  lossy.state.lose = true;
  await writer.put("lost", bytes("lost"), { effectId: "lost" }).catch(() => undefined);
  await writer.delete("del-lost", "latest", { effectId: "del-lost" }).catch(() => undefined);
  lossy.state.lose = false;
  const target = receiptOf(await service.head(SCOPE, "del-never"));
  await journal.intend(
    intent("del-never", { operation: "delete", name: "del-never", target }),
    LEASE,
  );
  const wanted = {
    applied: "compensated",
    lost: "compensated",
    "del-lost": "committed",
    "del-never": "not_applied",
  };
  return { wanted, ids: Object.keys(wanted).sort() };
}

/** How many live versions `name` has (none: not_found from the listing). */
async function versionCount(service: ArtifactService, name: string): Promise<number> {
  return allVersions(service, SCOPE, name).then(
    (versions) => versions.length,
    (error: unknown) => {
      if (isArtifactError(error, "not_found")) return 0;
      throw error;
    },
  );
}

const snapshot = async (world: World, ids: readonly string[]) =>
  Promise.all(ids.map(async (id) => (await world.journal.get(id)) as EffectRecord));

/**
 * Reads or the compensating delete failing: every orphan fails (never settled on a guess),
 * keeps its phase and receipt, and the service keeps every version; at the backoff's end, with
 * the service back, each is settled by what it holds.
 */
async function outagesAreRetriedNeverGuessed(world: World) {
  const { journal, peer, service, advance } = world;
  const { wanted, ids } = await leavePending(world);
  const names = ["applied", "lost", "del-never"];
  const held = async () => Promise.all(names.map((name) => versionCount(service, name)));
  const failing = failingService(service);
  const handler = artifactEffectHandler(failing.service);
  advance(LEASE.leaseMs);
  for (const [round, down] of [["head", "listVersions", "delete"], ["delete"]].entries()) {
    failing.state.down = new Set(down);
    const before = await snapshot(world, ids);
    const report = await world.reconcile({ handler, journal: round === 0 ? journal : peer });
    const outage = `with ${down.join(", ")} down`;
    // With only the delete down, the judgements that need no delete go through.
    const failed = round === 0 ? ids : ["applied", "lost"];
    expect(report.failed.map((f) => f.effectId).sort(), outage).toEqual(failed);
    expect(report.settled.map((s) => s.effectId).sort(), outage).toEqual(
      ids.filter((id) => !failed.includes(id)),
    );
    for (const [index, id] of ids.entries()) {
      const record = (await peer.get(id)) as EffectRecord;
      const was = before[index] as EffectRecord;
      if (!failed.includes(id)) {
        expect(record.phase, `${id} ${outage}`).toBe(wanted[id as keyof typeof wanted]);
        continue;
      }
      expect([record.phase, record.receipt, record.attempts], `${id} ${outage}`).toEqual([
        was.phase,
        was.receipt,
        was.attempts + 1,
      ]);
      expect(record.lastError, `${id} ${outage}`).toMatch(/down/);
    }
    expect(await held(), `versions kept ${outage}`).toEqual([1, 1, 1]);
    advance(RETRY.backoffMs * 2 ** round - 1);
    expect((await world.reconcile({ handler })).failed, "retried early").toEqual([]);
    advance(1);
  }
  const last = await world.reconcile({ journal: peer });
  expect(Object.fromEntries(last.settled.map((s) => [s.effectId, s.outcome]))).toEqual({
    applied: "compensated",
    lost: "compensated",
  });
  for (const id of ids) {
    expect((await journal.get(id))?.phase, id).toBe(wanted[id as keyof typeof wanted]);
  }
  expect(await held()).toEqual([0, 0, 1]);
}

/** Backoffs double per failure, stop growing at maxBackoffMs, and end at retry.attempts. */
async function backoffIsCapped(world: World) {
  const { journal, peer, advance, clock } = world;
  await journal.intend(intent("down", { name: "n" }), LEASE);
  const retry = { attempts: 5, backoffMs: 100, maxBackoffMs: 250 };
  const failing: EffectHandler = {
    async reconcile() {
      throw new Error("still down");
    },
  };
  advance(LEASE.leaseMs);
  for (const [index, backoff] of [100, 200, 250, 250, 250].entries()) {
    const report = await world.reconcile({ handler: failing, retry, journal: peer });
    expect(
      report.failed.map((f) => f.attempts),
      `failure ${index + 1}`,
    ).toEqual([index + 1]);
    const record = (await journal.get("down")) as EffectRecord;
    expect(record.lease.expiresAt - clock(), `backoff after failure ${index + 1}`).toBe(backoff);
    advance(backoff);
  }
  advance(1_000_000);
  expect(await world.reconcile({ handler: failing, retry })).toEqual({
    settled: [],
    failed: [],
    deferred: [],
  });
}

/**
 * An intended put is found by its key on a later page of its name's versions, and only its
 * version is deleted; a handler allowed fewer pages fails without deleting anything.
 */
async function versionsArePaged(world: World) {
  const { journal, service, advance } = world;
  const lossy = lossyService(service);
  const writer = journalArtifacts(lossy.service, SCOPE, { journal, ...LEASE });
  // Pages of 3, oldest first: the lost put's version (the 7th) is on the third page.
  for (let i = 0; i < 6; i++) await service.put(SCOPE, "many", bytes(`before ${i}`));
  lossy.state.lose = true;
  await writer.put("many", bytes("lost"), { effectId: "lost" }).catch(() => undefined);
  lossy.state.lose = false;
  for (let i = 0; i < 4; i++) await service.put(SCOPE, "many", bytes(`after ${i}`));
  const all = await allVersions(service, SCOPE, "many");
  const lost = all.find((meta) => meta.idempotencyKey === "lost") as ArtifactMeta;
  const paged = pagingService(service, 3);
  advance(LEASE.leaseMs);
  const short = artifactEffectHandler(paged, { maxPages: 2 });
  const refused = await world.reconcile({ handler: short });
  expect(refused.failed.map((f) => f.effectId)).toEqual(["lost"]);
  expect(refused.failed[0]?.error).toMatch(/maxPages/);
  // Called directly, the handler names the bound it hit.
  const record = (await journal.get("lost")) as EffectRecord;
  const direct = await refusalOf(
    () => short.reconcile(record, new AbortController().signal),
    "maxPages",
  );
  expect(direct).toMatchObject({ code: "overloaded", detail: { limit: "max_pages", bound: 2 } });
  expect(await allVersions(service, SCOPE, "many")).toHaveLength(all.length);
  advance(RETRY.backoffMs);
  const report = await world.reconcile({ handler: artifactEffectHandler(paged) });
  expect(report.settled).toEqual([{ effectId: "lost", outcome: "compensated" }]);
  expect((await journal.get("lost"))?.receipt).toEqual(receiptOf(lost));
  const left = (await allVersions(service, SCOPE, "many")).map((meta) => meta.version);
  expect(left).toEqual(all.map((meta) => meta.version).filter((v) => v !== lost.version));
}

/**
 * A put's and a delete's recorded versions are judged, not their name's latest: an applied
 * put with a newer version above it is compensated by deleting its own version; a delete of
 * an old version that happened is committed. A compensating delete that finds its version
 * already gone (someone deleted it meanwhile) is compensated all the same.
 */
async function recordedVersionsAreJudged(world: World) {
  const { journal, peer, service, advance } = world;
  const lossy = lossyService(service);
  const writer = journalArtifacts(lossy.service, SCOPE, { journal, ...LEASE });
  const put = await writer.put("put", bytes("mine"), { effectId: "put" });
  const newer = await service.put(SCOPE, "put", bytes("someone else's"));
  const old = await service.put(SCOPE, "del", bytes("old"));
  await service.put(SCOPE, "del", bytes("newer"));
  lossy.state.lose = true;
  await writer.delete("del", old.version, { effectId: "del" }).catch(() => undefined);
  lossy.state.lose = false;
  const raced = await writer.put("raced", bytes("raced"), { effectId: "raced" });
  // Someone deletes the version between the handler's read and its compensating delete.
  const racing = overriding(
    service,
    "delete",
    async (...args: Parameters<ArtifactService["delete"]>) => {
      await service.delete(...args);
      return service.delete(...args);
    },
  );
  advance(LEASE.leaseMs);
  const report = await world.reconcile({ handler: artifactEffectHandler(racing), journal: peer });
  expect(Object.fromEntries(report.settled.map((s) => [s.effectId, s.outcome]))).toEqual({
    put: "compensated",
    del: "committed",
    raced: "compensated",
  });
  expect(report.failed).toEqual([]);
  expect((await allVersions(service, SCOPE, "put")).map((meta) => meta.version)).toEqual([
    newer.version,
  ]);
  expect(await journal.get("put")).toMatchObject({ receipt: put.receipt });
  expect(await journal.get("del")).toMatchObject({ receipt: receiptOf(old) });
  expect(await journal.get("raced")).toMatchObject({ receipt: raced.receipt });
  expect(await versionCount(service, "raced")).toBe(0);
}

/** A pass claims at most `limit`; the rest is claimed by later passes, each orphan once. */
async function limitBoundsAPass(world: World) {
  const { journal, advance } = world;
  const ids = ["l0", "l1", "l2", "l3", "l4"];
  for (const id of ids) {
    await journal.intend(intent(id, { name: id }), LEASE);
  }
  advance(LEASE.leaseMs);
  const counts: number[] = [];
  for (let pass = 0; pass < 4; pass++)
    counts.push((await world.reconcile({ limit: 2 })).settled.length);
  expect(counts).toEqual([2, 2, 1, 0]);
  expect([...world.judged].sort()).toEqual(ids);
}

/** A handler still running at the pass's budget end is cut off there when the lease ends later. */
async function budgetCutsOffAHandler(world: World) {
  const { journal, advance } = world;
  await journal.intend(intent("slow", { name: "n" }), LEASE);
  advance(LEASE.leaseMs);
  // Deaf to the abort signal: the cut-off must not depend on the handler's cooperation.
  const hanging: EffectHandler = { reconcile: () => new Promise(() => {}) };
  const report = await world.reconcile({ handler: hanging, timeBudgetMs: 30, leaseMs: 60_000 });
  expect(report.failed.map((f) => f.effectId)).toEqual(["slow"]);
  expect(report.failed[0]?.error).toMatch(/longer than 30 ms/);
  const record = (await journal.get("slow")) as EffectRecord;
  expect([record.phase, record.attempts]).toEqual(["intended", 1]);
}

export function handlerLaws(options: EffectJournalConformanceOptions, it: Register): void {
  it("reconciler: a service outage while judging settles nothing and deletes nothing; each orphan is retried at its backoff's end and settled by what the service holds", () =>
    withWorld(options, outagesAreRetriedNeverGuessed));
  it("reconciler: the backoff doubles per failure and stops growing at maxBackoffMs", () =>
    withWorld(options, backoffIsCapped));
  it("reconciler: an intended put is found by its key on any page of its name's versions; past maxPages nothing is deleted", () =>
    withWorld(options, versionsArePaged));
  it("reconciler: a put's and a delete's recorded versions are judged, not their name's latest; a compensating delete that finds its version gone is compensated", () =>
    withWorld(options, recordedVersionsAreJudged));
  it("reconciler: a pass claims at most its limit; later passes take the rest, each once", () =>
    withWorld(options, limitBoundsAPass));
  it("reconciler: a handler is cut off at the pass's time budget when it ends before the lease", () =>
    withWorld(options, budgetCutsOffAHandler));
}
