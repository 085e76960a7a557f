import { expect } from "vitest";
import type { EffectJournal, EffectRecord } from "../types.js";
import {
  type EffectJournalConformanceOptions,
  intendAll,
  type JournalSubject,
  LEASE,
  type Register,
  scatteredIds,
  withJournal,
} from "./support.js";

// Observers during writes: readers, listers, claimers and pruners running at once on both
// handles, so that a step of one seen half-done by another shows.

const SETTLED = 160;
const ORPHANS = 40;
const CLAIM = { leaseMs: 60_000, limit: 1000, maxAttempts: 5 };

/** Settles every id through the two handles in turn. */
async function settleAll(journal: EffectJournal, peer: EffectJournal, ids: readonly string[]) {
  for (let at = 0; at < ids.length; at += 40) {
    await Promise.all(
      ids
        .slice(at, at + 40)
        .map((id, i) => (i % 2 === 0 ? journal : peer).settle(id, 1, "not_applied")),
    );
  }
}

/**
 * Two pruners, two claimers, two listers and a reader at once: no call fails, each orphan is
 * claimed once, a listing shows each effect at most once and only as it was or as claimed,
 * a pruned effect never comes back, and at the end only the orphans are left, all claimed.
 */
async function prunesClaimsAndReadsAtOnce(
  { journal, peer }: JournalSubject,
  advance: (ms: number) => void,
  clock: () => number,
) {
  const settled = scatteredIds("settled", SETTLED);
  const orphans = scatteredIds("orphan", ORPHANS);
  await intendAll(journal, [...settled, ...orphans]);
  await settleAll(journal, peer, settled);
  const before = new Map((await peer.list()).map((record) => [record.effectId, record]));
  advance(LEASE.leaseMs);
  const olderThan = clock();
  const listing = (handle: EffectJournal) => handle.list();
  const [prunedA, prunedB, claimedA, claimedB, listA, listB, reads] = await Promise.all([
    journal.prune({ olderThan, limit: 1000 }),
    peer.prune({ olderThan, limit: 1000 }),
    journal.claimOrphans({ ...CLAIM, owner: "r1" }),
    peer.claimOrphans({ ...CLAIM, owner: "r2" }),
    listing(peer),
    listing(journal),
    Promise.all(settled.map((id) => peer.get(id))),
  ]);
  const claimed = [...claimedA, ...claimedB].map((record) => record.effectId).sort();
  expect(claimed, "each orphan claimed exactly once").toEqual([...orphans].sort());
  for (const [name, listed] of [
    ["list through the peer", listA],
    ["list through the journal", listB],
  ] as const) {
    const ids = listed.map((record) => record.effectId);
    expect(ids.length, `${name}: an effect listed twice`).toBe(new Set(ids).size);
    for (const record of listed) expectAsBeforeOrClaimed(record, before, name);
  }
  for (const [index, record] of reads.entries()) {
    if (record !== undefined)
      expect(record, `get ${settled[index]}`).toEqual(before.get(record.effectId));
  }
  expect(prunedA.pruned + prunedB.pruned, "effects pruned").toBe(SETTLED);
  const left = await peer.list();
  expect(left.every((record) => record.lease.fencingToken === 2)).toBe(true);
  expect(left.map((record) => record.effectId).sort(), "left after the prunes").toEqual(
    [...orphans].sort(),
  );
  // Each claimer settles what it won: the lease it won is the one the settled record keeps,
  // whatever the losing claimer's handle remembers of its attempt.
  for (const [handle, won] of [
    [journal, claimedA],
    [peer, claimedB],
  ] as const) {
    for (const record of won) {
      await handle.settle(record.effectId, record.lease.fencingToken, "not_applied");
      const stored = await peer.get(record.effectId);
      expect(stored?.lease, `${record.effectId}: the winner's lease`).toEqual(record.lease);
      expect(stored?.phase).toBe("not_applied");
    }
  }
  for (const id of settled) expect(await journal.get(id), `${id} came back`).toBeUndefined();
}

function expectAsBeforeOrClaimed(
  record: EffectRecord,
  before: ReadonlyMap<string, EffectRecord>,
  what: string,
) {
  const was = before.get(record.effectId);
  expect(was, `${what}: ${record.effectId} was never made`).toBeDefined();
  if (record.lease.fencingToken === 1) expect(record, what).toEqual(was);
  else expect({ ...record, lease: was?.lease, updatedAt: was?.updatedAt }, what).toEqual(was);
}

export function raceLaws(options: EffectJournalConformanceOptions, it: Register): void {
  it(`races: ${SETTLED} prunable and ${ORPHANS} orphaned effects pruned, claimed, listed and read at once through both handles; each claim's winner keeps its lease`, () =>
    withJournal(options, prunesClaimsAndReadsAtOnce));
}
