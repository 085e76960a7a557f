import type { ArtifactService, Scope } from "@artifact-kit/core";
import {
  artifactEffectHandler,
  journalArtifacts,
  MemoryEffectJournal,
  reconcile,
} from "@artifact-kit/effects";

const encode = (text: string) => new TextEncoder().encode(text);
const LEASE_MS = 60_000;

/**
 * The demo's last step: a tool's journaled put whose session event never lands (the runtime
 * died between the two) is an orphan; once its lease runs out a reconciler finds it and,
 * as nothing refers to it, deletes the version. A committed put beside it is kept. The
 * journal is in memory here, on a clock the demo moves instead of waiting out the lease.
 */
export async function orphanWalkthrough(
  service: ArtifactService,
  scope: Scope,
  step: number,
  log: (line: string) => void,
): Promise<void> {
  log(`${step}. a tool's put whose session event never lands is reconciled (effect journal)`);
  let now = Date.now();
  const journal = new MemoryEffectJournal({ clock: () => now });
  try {
    const tool = journalArtifacts(service, scope, { journal, owner: "runtime", leaseMs: LEASE_MS });
    const kept = await tool.put("notes.txt", encode("kept: its event is durable"));
    await tool.commit(kept.effectId);
    log(`   notes.txt v${kept.receipt.version} committed (effect ${kept.effectId.slice(0, 8)}…)`);
    const orphan = await tool.put("notes.txt", encode("orphan: the runtime died here"));
    log(
      `   notes.txt v${orphan.receipt.version} applied, never committed: an orphan (effect ${orphan.effectId.slice(0, 8)}…)`,
    );
    now += LEASE_MS + 1;
    const report = await reconcile(journal, artifactEffectHandler(service), {
      owner: "reconciler",
      limit: 10,
      timeBudgetMs: 30_000,
      leaseMs: 30_000,
      retry: { attempts: 3, backoffMs: 1000, maxBackoffMs: 10_000 },
    });
    for (const { effectId, outcome } of report.settled) {
      log(`   the reconciler settled effect ${effectId.slice(0, 8)}…: ${outcome}`);
    }
    const left = await service.listVersions(scope, "notes.txt");
    log(`   notes.txt now has ${left.items.map((meta) => `v${meta.version}`).join(", ")} only`);
  } finally {
    await journal.close();
  }
}
