import { allNames, isArtifactError, sha256Hex } from "@artifact-kit/core";
import { expect } from "vitest";
import { journalArtifacts } from "../journaled.js";
import type { EffectHandler } from "../reconcile.js";
import type { TerminalPhase } from "../types.js";
import { expectExplained } from "./refusal-laws.js";
import { type EffectJournalConformanceOptions, LEASE, type Register, SCOPE } from "./support.js";
import {
  bytes,
  lossyService,
  RETRY,
  receiptOf,
  unrecordingJournal,
  type World,
  withWorld,
} from "./world.js";

async function pending(promise: Promise<unknown>): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(isArtifactError(error, "effect_pending_reconciliation"), String(error)).toBe(true);
  expectExplained(error as Error, "effect_pending_reconciliation");
}

/** What the journal says of each id: its phase and its lease's holder. */
async function phases({ journal }: World, ids: readonly string[]) {
  const out: Record<string, [string | undefined, string | undefined]> = {};
  for (const id of ids) {
    const record = await journal.get(id);
    out[id] = [record?.phase, record?.lease.owner];
  }
  return out;
}

/**
 * Journaled puts and deletes left in every state, each judged by what the service holds once
 * its lease ends (not a millisecond before), through the other handle: a put that published
 * (recorded or not) is compensated and its version deleted; one that never reached the
 * service is not_applied; a delete that happened is committed, one that did not is
 * not_applied; settled effects and live leases are left alone.
 */
async function settlesEveryState(world: World) {
  const { journal, peer, service, advance } = world;
  const lossy = lossyService(service);
  const options = { journal, owner: LEASE.owner, leaseMs: LEASE.leaseMs };
  const writer = journalArtifacts(lossy.service, SCOPE, options);
  const unrecorded = journalArtifacts(service, SCOPE, {
    ...options,
    journal: unrecordingJournal(journal),
  });
  for (const name of ["del-applied", "del-lost", "del-never"]) {
    await service.put(SCOPE, name, bytes(`target ${name}`));
  }

  const committed = await writer.put("committed", bytes("kept"), { effectId: "committed" });
  await writer.commit("committed");
  await writer.put("applied", bytes("applied"), { effectId: "applied" });
  lossy.state.lose = true;
  await pending(writer.put("lost", bytes("lost"), { effectId: "lost" }));
  await pending(writer.delete("del-lost", "latest", { effectId: "del-lost" }));
  lossy.state.lose = false;
  await pending(unrecorded.put("unrecorded", bytes("unrecorded"), { effectId: "unrecorded" }));
  await journal.intend(
    {
      effectId: "never",
      operation: "put",
      scope: SCOPE,
      name: "never",
      requestDigest: sha256Hex("n"),
    },
    LEASE,
  );
  await writer.delete("del-applied", "latest", { effectId: "del-applied" });
  const target = receiptOf(await service.head(SCOPE, "del-never"));
  await journal.intend(
    {
      effectId: "del-never",
      operation: "delete",
      scope: SCOPE,
      name: "del-never",
      requestDigest: sha256Hex("d"),
      target,
    },
    LEASE,
  );
  await writer
    .put("refused", bytes("x"), { effectId: "refused", metadata: { bad: Number.NaN } })
    .catch(() => undefined);
  const landed = {
    applied: receiptOf(await service.head(SCOPE, "applied")),
    lost: receiptOf(await service.head(SCOPE, "lost")),
    unrecorded: receiptOf(await service.head(SCOPE, "unrecorded")),
  };
  advance(500);
  const late = await writer.put("late", bytes("late"), { effectId: "late" });

  advance(LEASE.leaseMs - 500 - 1);
  expect((await world.reconcile({ journal: peer })).settled, "1 ms before the leases end").toEqual(
    [],
  );
  expect(world.judged).toEqual([]);
  advance(1);
  const report = await world.reconcile({ journal: peer });
  const wanted: Record<string, TerminalPhase> = {
    applied: "compensated",
    lost: "compensated",
    unrecorded: "compensated",
    never: "not_applied",
    "del-applied": "committed",
    "del-lost": "committed",
    "del-never": "not_applied",
  };
  expect(Object.fromEntries(report.settled.map((s) => [s.effectId, s.outcome]))).toEqual(wanted);
  expect([report.failed, report.deferred]).toEqual([[], []]);
  expect([...world.judged].sort()).toEqual(Object.keys(wanted).sort());
  for (const [id, receipt] of Object.entries(landed)) {
    expect((await journal.get(id))?.receipt, `the receipt of ${id}`).toEqual(receipt);
  }
  expect((await peer.get("del-never"))?.receipt).toBeUndefined();
  expect(await phases(world, ["committed", "refused", "late"])).toEqual({
    committed: ["committed", LEASE.owner],
    refused: ["not_applied", LEASE.owner],
    late: ["applied", LEASE.owner],
  });
  // What the service holds: only what was kept, still to be decided, or never deleted.
  expect((await allNames(service, SCOPE)).sort()).toEqual(["committed", "del-never", "late"]);
  expect(receiptOf(await service.head(SCOPE, "committed"))).toEqual(committed.receipt);
  expect(receiptOf(await service.head(SCOPE, "del-never"))).toEqual(target);

  // The writer lost what the reconciler took, and keeps what it still holds.
  const refused = await writer.commit("applied").then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(isArtifactError(refused, "capability_denied"), String(refused)).toBe(true);
  expect((await peer.get("applied"))?.phase).toBe("compensated");
  expect((await writer.commit(late.effectId))[0]?.phase).toBe("committed");
  advance(10 * LEASE.leaseMs);
  expect(await world.reconcile()).toEqual({ settled: [], failed: [], deferred: [] });
  expect(world.judged).toHaveLength(Object.keys(wanted).length);
}

/** Two reconcilers on the two handles, at once: every orphan is judged and settled once. */
async function twoReconcilersSettleOnce(world: World) {
  const { journal, peer, service, advance } = world;
  const lossy = lossyService(service);
  const writer = journalArtifacts(lossy.service, SCOPE, { journal, ...LEASE });
  const ids = Array.from({ length: 24 }, (_, i) => `orphan-${i}`);
  lossy.state.lose = true;
  for (const id of ids) await pending(writer.put(`${id}.txt`, bytes(id), { effectId: id }));
  lossy.state.lose = false;
  advance(LEASE.leaseMs);
  const reports = await Promise.all([
    world.reconcile({ owner: "r1", limit: 24 }),
    world.reconcile({ journal: peer, owner: "r2", limit: 24 }),
  ]);
  const settled = reports.flatMap((report) => report.settled.map((s) => s.effectId)).sort();
  expect(settled).toEqual([...ids].sort());
  expect([...world.judged].sort()).toEqual([...ids].sort());
  for (const id of ids) expect((await peer.get(id))?.phase).toBe("compensated");
  expect(await allNames(service, SCOPE)).toEqual([]);
}

/** A failing handler's effect waits exactly its backoff, then is retried until retry.attempts. */
async function failuresBackOffOnTheClock(world: World) {
  const { journal, peer, advance } = world;
  for (const id of ["flaky", "broken"]) {
    await journal.intend(
      { effectId: id, operation: "put", scope: SCOPE, name: id, requestDigest: sha256Hex(id) },
      LEASE,
    );
  }
  let flakyCalls = 0;
  const handler: EffectHandler = {
    async reconcile(effect) {
      if (effect.effectId === "flaky" && ++flakyCalls > 1) return { outcome: "not_applied" };
      throw new Error(`${effect.effectId} failed`);
    },
  };
  advance(LEASE.leaseMs);
  const first = await world.reconcile({ handler });
  expect(first.failed.map((f) => [f.effectId, f.attempts]).sort()).toEqual([
    ["broken", 1],
    ["flaky", 1],
  ]);
  advance(RETRY.backoffMs - 1);
  expect(await world.reconcile({ handler, journal: peer }), "retried before the backoff").toEqual({
    settled: [],
    failed: [],
    deferred: [],
  });
  advance(1);
  const second = await world.reconcile({ handler, journal: peer });
  expect(second.settled).toEqual([{ effectId: "flaky", outcome: "not_applied" }]);
  expect(second.failed.map((f) => [f.effectId, f.attempts])).toEqual([["broken", 2]]);
  // The backoff doubles: 200 ms now.
  advance(2 * RETRY.backoffMs - 1);
  expect((await world.reconcile({ handler })).failed).toEqual([]);
  advance(1);
  expect((await world.reconcile({ handler })).failed.map((f) => f.attempts)).toEqual([3]);
  advance(1_000_000);
  expect(await world.reconcile({ handler })).toEqual({ settled: [], failed: [], deferred: [] });
  expect(await peer.get("broken")).toMatchObject({
    phase: "intended",
    attempts: 3,
    lastError: "Error: broken failed",
  });
}

/** Past the pass's time budget the rest is deferred, and claimable again at its lease's end. */
async function budgetDefersOnTheClock(world: World) {
  const { journal, advance, clock } = world;
  const budget = 100;
  for (const id of ["d1", "d2", "d3"]) {
    await journal.intend(
      { effectId: id, operation: "put", scope: SCOPE, name: id, requestDigest: sha256Hex(id) },
      LEASE,
    );
  }
  advance(LEASE.leaseMs);
  const claimedAt = clock();
  const slow: EffectHandler = {
    async reconcile() {
      advance(budget);
      return { outcome: "not_applied" };
    },
  };
  const report = await world.reconcile({ handler: slow, timeBudgetMs: budget });
  expect(report.settled).toHaveLength(1);
  expect(report.deferred).toHaveLength(2);
  const deferred = [...report.deferred].sort();
  advance(claimedAt + 1000 - clock() - 1);
  expect(
    (await world.reconcile()).settled,
    "deferred effects taken before their lease ends",
  ).toEqual([]);
  advance(1);
  const later = await world.reconcile();
  expect(later.settled.map((s) => s.effectId).sort()).toEqual(deferred);
}

export function reconcileLaws(options: EffectJournalConformanceOptions, it: Register): void {
  it("reconciler: settles journaled puts and deletes in every state by what the service holds, at their lease's end, through the other handle", () =>
    withWorld(options, settlesEveryState));
  it("reconciler: two reconcilers on two handles at once judge and settle every orphan once", () =>
    withWorld(options, twoReconcilersSettleOnce));
  it("reconciler: a failed effect is retried exactly at its backoff's end, until retry.attempts", () =>
    withWorld(options, failuresBackOffOnTheClock));
  it("reconciler: past the time budget the rest is deferred, claimable again exactly at its lease's end", () =>
    withWorld(options, budgetDefersOnTheClock));
}
