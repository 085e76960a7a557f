import { expect } from "vitest";
import type { reconcile as realReconcile } from "../reconcile.js";
import type { EffectJournal, EffectRecord } from "../types.js";
import { overriding } from "./world.js";

type Reconcile = typeof realReconcile;

/**
 * Runs one pass and holds its report to what it claimed: every effect the pass claimed is in
 * exactly one of settled, failed and deferred, and each list says what the journal now holds
 * (a settled effect at that outcome, a failed one still open with that many attempts, a
 * deferred one still open under this pass's lease). Every reconciler law's passes go through
 * here, so a report that misfiles, double-counts or drops an effect fails wherever it shows.
 */
export async function checkedPass(
  reconcile: Reconcile,
  ...[journal, handler, options]: Parameters<Reconcile>
): ReturnType<Reconcile> {
  const claimed: EffectRecord[] = [];
  const claiming = overriding(journal, "claimOrphans", async (request: unknown) => {
    const taken = await journal.claimOrphans(
      request as Parameters<EffectJournal["claimOrphans"]>[0],
    );
    claimed.push(...taken);
    return taken;
  });
  const report = await reconcile(claiming, handler, options);
  const filed = [
    ...report.settled.map((s) => s.effectId),
    ...report.failed.map((f) => f.effectId),
    ...report.deferred,
  ];
  expect([...filed].sort(), "the report files each claimed effect exactly once").toEqual(
    claimed.map((record) => record.effectId).sort(),
  );
  for (const { effectId, outcome } of report.settled) {
    expect((await journal.get(effectId))?.phase, `reported ${effectId} ${outcome}`).toBe(outcome);
  }
  for (const { effectId, attempts } of report.failed) {
    const record = await journal.get(effectId);
    expect(record?.phase, `reported ${effectId} failed`).toMatch(/^(intended|applied)$/);
    expect(record?.attempts, `reported ${effectId} failed at attempt ${attempts}`).toBe(attempts);
  }
  for (const effectId of report.deferred) {
    const record = await journal.get(effectId);
    const lease = claimed.find((each) => each.effectId === effectId)?.lease;
    expect(record?.phase, `reported ${effectId} deferred`).toMatch(/^(intended|applied)$/);
    expect(record?.lease, `reported ${effectId} deferred: still under this pass's lease`).toEqual(
      lease,
    );
  }
  return report;
}
