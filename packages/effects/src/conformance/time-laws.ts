import { expect } from "vitest";
import type { EffectJournal } from "../types.js";
import {
  type EffectJournalConformanceOptions,
  intent,
  type JournalSubject,
  LEASE,
  type Register,
  START,
  withJournal,
} from "./support.js";

// Every time rule of the journal at its edge, on the kit's clock: one millisecond before the
// edge and at it. The rule: a lease expiring at t is claimable from t on; a terminal effect
// last changed at u is pruned by `olderThan` greater than u.

const CLAIM = { leaseMs: 300, limit: 10, maxAttempts: 5 };

async function claimIds(journal: EffectJournal, owner: string): Promise<string[]> {
  return (await journal.claimOrphans({ ...CLAIM, owner })).map((record) => record.effectId);
}

async function leaseExpiresAtItsEdge(
  { journal, peer }: JournalSubject,
  advance: (ms: number) => void,
  clock: () => number,
) {
  const intended = await journal.intend(intent("e1"), LEASE);
  expect(intended.lease.expiresAt).toBe(START + LEASE.leaseMs);
  advance(LEASE.leaseMs - 1);
  expect(await claimIds(journal, "r1"), "claimable 1 ms before its lease ends").toEqual([]);
  expect(await claimIds(peer, "r1"), "claimable through the peer 1 ms early").toEqual([]);
  advance(1);
  const [claimed] = await peer.claimOrphans({ ...CLAIM, owner: "r1" });
  expect(claimed?.lease).toEqual({
    owner: "r1",
    expiresAt: clock() + CLAIM.leaseMs,
    fencingToken: 2,
  });
  // The claimed lease has the same edge, whichever handle looks.
  advance(CLAIM.leaseMs - 1);
  expect(await claimIds(journal, "r2"), "a claimed lease taken 1 ms early").toEqual([]);
  advance(1);
  expect(await claimIds(journal, "r2")).toEqual(["e1"]);
  expect((await peer.get("e1"))?.lease).toMatchObject({ owner: "r2", fencingToken: 3 });
}

async function backoffEndsAtItsEdge(
  { journal, peer }: JournalSubject,
  advance: (ms: number) => void,
) {
  await journal.intend(intent("e1"), LEASE);
  advance(LEASE.leaseMs);
  const [claimed] = await journal.claimOrphans({ ...CLAIM, owner: "r1" });
  const token = claimed?.lease.fencingToken ?? 0;
  advance(7);
  const failed = await journal.recordFailure("e1", token, "down", 250);
  expect(failed.lease.expiresAt).toBe(START + LEASE.leaseMs + 7 + 250);
  advance(249);
  expect(await claimIds(peer, "r2"), "retried 1 ms before its backoff ends").toEqual([]);
  advance(1);
  expect(await claimIds(peer, "r2")).toEqual(["e1"]);
}

/** A lease held by its writer is not claimable at any time before its edge, however close. */
async function liveLeaseIsNeverClaimed(
  { journal, peer }: JournalSubject,
  advance: (ms: number) => void,
) {
  const long = { owner: "writer", leaseMs: 5000 };
  await journal.intend(intent("held"), long);
  await journal.intend(intent("short"), LEASE);
  for (const step of [0, 1, LEASE.leaseMs - 2]) {
    advance(step);
    expect(await claimIds(peer, "r")).toEqual([]);
  }
  advance(1);
  const [short] = await peer.claimOrphans({ ...CLAIM, owner: "r" });
  expect(short?.effectId).toBe("short");
  await peer.settle("short", short?.lease.fencingToken ?? 0, "not_applied");
  advance(long.leaseMs - LEASE.leaseMs - 1);
  expect(await claimIds(peer, "r")).toEqual([]);
  expect((await journal.get("held"))?.lease).toMatchObject({ owner: "writer", fencingToken: 1 });
}

async function pruneAgeIsExact({ journal, peer }: JournalSubject, advance: (ms: number) => void) {
  await journal.intend(intent("old"), LEASE);
  // Settled later than intended: the age counts from the last change, not from the intent.
  advance(40);
  const settled = await journal.settle("old", 1, "not_applied");
  const settledAt = START + 40;
  expect(settled.updatedAt).toBe(settledAt);
  await journal.intend(intent("open"), LEASE);
  advance(10_000);
  expect(await peer.prune({ olderThan: settledAt, limit: 10 })).toEqual({ pruned: 0 });
  expect(await journal.get("old")).toEqual(settled);
  expect(await peer.prune({ olderThan: settledAt + 1, limit: 10 })).toEqual({ pruned: 1 });
  expect(await journal.get("old")).toBeUndefined();
  // An open effect is never pruned, however old.
  expect(await journal.prune({ olderThan: START + 1_000_000, limit: 10 })).toEqual({ pruned: 0 });
  expect((await peer.list()).map((record) => record.effectId)).toEqual(["open"]);
}

/** Every change stamps the kit's time: a journal must read the clock it was given, each time. */
async function changesStampTheClock(
  { journal, peer }: JournalSubject,
  advance: (ms: number) => void,
) {
  const intended = await journal.intend(intent("e1"), LEASE);
  expect([intended.createdAt, intended.updatedAt]).toEqual([START, START]);
  advance(3);
  const applied = await peer.markApplied("e1", 1, { version: 1, sha256: "0".repeat(64), size: 0 });
  expect([applied.createdAt, applied.updatedAt]).toEqual([START, START + 3]);
  advance(4);
  const committed = await journal.settle("e1", 1, "committed");
  expect([committed.createdAt, committed.updatedAt]).toEqual([START, START + 7]);
  expect(await peer.get("e1")).toEqual(committed);
}

export function timeLaws(options: EffectJournalConformanceOptions, it: Register): void {
  it("time: a lease expiring at t is claimable at t, not at t - 1, through either handle", () =>
    withJournal(options, leaseExpiresAtItsEdge));
  it("time: a failure's backoff ends exactly retryAfterMs after it was recorded", () =>
    withJournal(options, backoffEndsAtItsEdge));
  it("time: a live lease is never claimed, however close to its end", () =>
    withJournal(options, liveLeaseIsNeverClaimed));
  it("time: prune takes an effect last changed at u only with olderThan > u, never an open one", () =>
    withJournal(options, pruneAgeIsExact));
  it("time: every change is stamped with the clock's time when it was made", () =>
    withJournal(options, changesStampTheClock));
}
