import { setTimeout as sleep } from "node:timers/promises";
import { isArtifactError, type Scope } from "@artifact-kit/core";
import {
  artifactEffectHandler,
  type EffectRecord,
  FsEffectJournal,
  reconcile,
} from "@artifact-kit/effects";
import { FsArtifactService } from "@artifact-kit/fs";
import { describe, expect, it } from "vitest";
import { seedOrphans } from "./fixtures/reconciler-race.mjs";
import { startChild, tempDirs } from "./processes.js";

// A writer process doing journaled puts and deletes (fs adapter, fs journal) is SIGKILLed,
// either by itself right after its Nth journal write (between two phases) or by this process
// as soon as it reads that the Nth was done (in the middle of the service call or journal write
// that follows). Then one reconcile pass must leave: no
// unsettled effect, every committed put's version live with its digest, every compensated
// one gone, every committed delete's target gone, and no live version nobody accounts for.

const TRIALS = process.env.CI === "true" ? 200 : 40;
const LANES = 4;
/** The writer does at least one journal write for each of its 40 operations. */
const MAX_KILL_AFTER = 40;
const SCOPE: Scope = { kind: "session", app: "crash", user: "u", session: "s" };
const NAMES = ["a.txt", "b/c.bin"];
const RETRY = { attempts: 3, backoffMs: 100, maxBackoffMs: 1000 };

/** A journal whose clock is an hour ahead: every lease a dead writer held has expired. */
function laterJournal(root: string): FsEffectJournal {
  return new FsEffectJournal({ root, clock: () => Date.now() + 3_600_000 });
}

async function headOrUndefined(service: FsArtifactService, name: string, version: number) {
  try {
    return await service.head(SCOPE, name, { version });
  } catch (error) {
    if (isArtifactError(error, "not_found")) return undefined;
    throw error;
  }
}

async function checkInvariants(service: FsArtifactService, effects: EffectRecord[]): Promise<void> {
  const byId = new Map(effects.map((effect) => [effect.effectId, effect]));
  for (const effect of effects) {
    expect(["committed", "compensated", "not_applied"]).toContain(effect.phase);
    if (effect.phase === "not_applied") continue;
    const receipt = effect.receipt;
    expect(receipt, `${effect.effectId} settled ${effect.phase} without a receipt`).toBeDefined();
    if (receipt === undefined) continue;
    const live = await headOrUndefined(service, effect.name, receipt.version);
    if (effect.operation === "delete") {
      if (effect.phase === "committed") expect(live).toBeUndefined();
      continue;
    }
    if (effect.phase === "compensated") {
      expect(
        live,
        `compensated ${effect.effectId} left version ${receipt.version}`,
      ).toBeUndefined();
    } else if (live === undefined) {
      // Only a later committed delete may remove a committed put's version.
      const removedBy = effects.find(
        (other) =>
          other.operation === "delete" &&
          other.phase === "committed" &&
          other.name === effect.name &&
          other.target?.version === receipt.version,
      );
      expect(
        removedBy,
        `committed ${effect.effectId} lost version ${receipt.version}`,
      ).toBeDefined();
    } else {
      expect({ sha256: live.sha256, size: live.size }).toEqual({
        sha256: receipt.sha256,
        size: receipt.size,
      });
    }
  }
  for (const name of NAMES) {
    const { items } = await service.listVersions(SCOPE, name);
    for (const meta of items) {
      const owner = meta.idempotencyKey === undefined ? undefined : byId.get(meta.idempotencyKey);
      expect(
        owner,
        `version ${meta.version} of ${name} is accounted for by no effect`,
      ).toMatchObject({
        operation: "put",
        phase: "committed",
        receipt: { version: meta.version, sha256: meta.sha256 },
      });
    }
  }
}

/**
 * Observing a put needs the adapter to keep the idempotency key on the version's record
 * (meta.idempotencyKey); say so plainly instead of failing on a missing version later.
 */
async function requireRecordedKeys(root: string): Promise<void> {
  const service = await FsArtifactService.open({ root });
  try {
    const meta = await service.put(SCOPE, "probe", new Uint8Array([1]), {
      idempotencyKey: "probe",
    });
    expect(
      meta.idempotencyKey,
      "the fs adapter must record idempotency keys (meta.idempotencyKey)",
    ).toBe("probe");
    await service.delete(SCOPE, "probe", "all");
  } finally {
    await service.close();
  }
}

interface LaneStats {
  betweenPhases: number;
  inPhase: number;
  finished: number;
  settled: Record<string, number>;
}

async function lane(index: number, trials: number): Promise<LaneStats> {
  const dirs = await tempDirs(`crash-${index}`);
  const stats: LaneStats = { betweenPhases: 0, inPhase: 0, finished: 0, settled: {} };
  try {
    await requireRecordedKeys(dirs.store);
    for (let trial = 0; trial < trials; trial++) {
      const seed = index * 100_003 + trial * 7919 + 1;
      const byJournalCall = trial % 2 === 0;
      const killAfter = 1 + ((seed >> 3) % (byJournalCall ? 24 : MAX_KILL_AFTER));
      const writer = startChild("journaled-writer.mjs", [
        dirs.store,
        dirs.journal,
        String(seed),
        String(byJournalCall ? killAfter : 0),
      ]);
      if (!byJournalCall) {
        // Should the writer finish first, the trial counts as finished, not as a kill.
        await writer.waitFor(`journal ${killAfter}`).then(
          () => writer.process.kill("SIGKILL"),
          () => undefined,
        );
      }
      const { signal } = await writer.done;
      if (writer.lines.includes("finished")) stats.finished++;
      else {
        expect(signal).toBe("SIGKILL");
        if (byJournalCall) stats.betweenPhases++;
        else stats.inPhase++;
      }
      const journal = laterJournal(dirs.journal);
      const service = await FsArtifactService.open({ root: dirs.store });
      try {
        const report = await reconcile(journal, artifactEffectHandler(service), {
          owner: "reconciler",
          limit: 1000,
          timeBudgetMs: 30_000,
          leaseMs: 60_000,
          retry: RETRY,
        });
        expect(report.failed).toEqual([]);
        for (const { outcome } of report.settled)
          stats.settled[outcome] = (stats.settled[outcome] ?? 0) + 1;
        await checkInvariants(service, await journal.list());
        // The store's own recovery must not overturn a verdict: a put judged not_applied
        // stays unpublished, whatever the killed writer left bound.
        await service.repair({ minAgeMs: 0 });
        await checkInvariants(service, await journal.list());
      } finally {
        await service.close();
        await journal.close();
      }
    }
  } finally {
    await dirs.cleanup();
  }
  return stats;
}

describe("SIGKILL trials: journaled writes over fs with an fs journal", () => {
  // A limit for hangs: 200 spawned writers take 20 minutes at a load average of 40.
  it(`${TRIALS} kills, each followed by one reconcile pass`, { timeout: 1_800_000 }, async () => {
    const lanes = await Promise.all(
      Array.from({ length: LANES }, (_, index) => lane(index, TRIALS / LANES)),
    );
    const kills = lanes.reduce((sum, each) => sum + each.betweenPhases + each.inPhase, 0);
    const settled: Record<string, number> = {};
    for (const [outcome, count] of lanes.flatMap((each) => Object.entries(each.settled))) {
      settled[outcome] = (settled[outcome] ?? 0) + count;
    }
    console.log(
      `effects crash trials: ${kills} kills of ${TRIALS} trials; reconciled ${JSON.stringify(settled)}`,
    );
    expect(kills).toBeGreaterThanOrEqual(TRIALS * 0.9);
    expect(lanes.every((each) => each.betweenPhases > 0 && each.inPhase > 0)).toBe(true);
  });
});

describe("two reconciler processes racing over the same orphans", () => {
  it("resolve each orphan exactly once", { timeout: 300_000 }, async () => {
    const dirs = await tempDirs("race");
    try {
      await requireRecordedKeys(dirs.store);
      const service = await FsArtifactService.open({ root: dirs.store });
      const journal = new FsEffectJournal({ root: dirs.journal });
      const orphans = 40;
      await seedOrphans(journal, service, SCOPE, orphans);
      await sleep(5);
      const racers = ["r1", "r2"].map((owner) =>
        startChild("reconciler.mjs", [dirs.store, dirs.journal, owner]),
      );
      await Promise.all(racers.map((racer) => racer.waitFor("ready")));
      for (const racer of racers) racer.process.stdin?.write("go\n");
      const results = await Promise.all(
        racers.map(async (racer) => {
          const { code } = await racer.done;
          expect(code).toBe(0);
          return JSON.parse(racer.lines.at(-1) ?? "{}") as {
            handled: string[];
            report: { settled: { effectId: string }[]; failed: unknown[] };
          };
        }),
      );
      const handled = results.flatMap((result) => result.handled).sort();
      const settled = results
        .flatMap((result) => result.report.settled.map((each) => each.effectId))
        .sort();
      const all = Array.from({ length: orphans }, (_, index) => `orphan-${index}`).sort();
      expect(handled).toEqual(all);
      expect(settled).toEqual(all);
      expect(results.every((result) => result.report.failed.length === 0)).toBe(true);
      const effects = await journal.list();
      expect(effects.every((effect) => effect.phase === "compensated")).toBe(true);
      for (let name = 0; name < 4; name++) {
        expect((await service.listVersions(SCOPE, `n${name}`)).items).toEqual([]);
      }
      await service.close();
      await journal.close();
    } finally {
      await dirs.cleanup();
    }
  });
});
