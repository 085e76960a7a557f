import { expect } from "vitest";
import type { EffectHandler } from "../reconcile.js";
import {
  type EffectJournalConformanceOptions,
  intendAll,
  type JournalSubject,
  LEASE,
  type Register,
  reconcilerOf,
  scatteredIds,
  withJournal,
} from "./support.js";
import { RETRY } from "./world.js";

/** Past one batch of maxBatch (1,000) and one keyset page of a round 1,000. */
const ORPHANS = 1_050;

/**
 * Orphans over several pages: reconciler passes on both handles, each claiming at most
 * maxBatch, judge every one once and miss none; prune then removes them all, a batch a call.
 */
function acrossPages(options: EffectJournalConformanceOptions) {
  const reconcile = reconcilerOf(options);
  return async (
    { journal, peer }: JournalSubject,
    advance: (ms: number) => void,
    clock: () => number,
  ) => {
    const { maxBatch } = journal.capabilities().limits;
    const ids = scatteredIds("page", ORPHANS);
    await intendAll(journal, ids);
    advance(LEASE.leaseMs);
    const judged: string[] = [];
    const handler: EffectHandler = {
      async reconcile(effect) {
        judged.push(effect.effectId);
        return { outcome: "not_applied" };
      },
    };
    const pass = (handle: typeof journal) =>
      reconcile(handle, handler, {
        owner: "reconciler",
        limit: maxBatch,
        timeBudgetMs: 600_000,
        leaseMs: 60_000,
        retry: RETRY,
        clock,
      });
    const first = await pass(journal);
    expect(first.settled).toHaveLength(Math.min(maxBatch, ORPHANS));
    const second = await pass(peer);
    expect(second.settled).toHaveLength(ORPHANS - first.settled.length);
    expect((await pass(journal)).settled).toEqual([]);
    expect(judged.length, "an orphan judged twice").toBe(new Set(judged).size);
    expect([...judged].sort()).toEqual([...ids].sort());

    advance(1);
    const now = clock();
    expect(await journal.prune({ olderThan: now, limit: maxBatch })).toEqual({
      pruned: Math.min(maxBatch, ORPHANS),
    });
    expect(await peer.prune({ olderThan: now, limit: maxBatch })).toEqual({
      pruned: ORPHANS - Math.min(maxBatch, ORPHANS),
    });
    expect(await peer.list()).toEqual([]);
  };
}

export function scaleLaws(options: EffectJournalConformanceOptions, it: Register): void {
  it(
    `scale: ${ORPHANS} orphans are each reconciled once across batches and handles, then pruned`,
    () => withJournal(options, acrossPages(options)),
    300_000,
  );
}
