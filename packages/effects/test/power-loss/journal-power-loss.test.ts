import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CrashFs,
  type CutMode,
  crashfsBinary,
  type TrialResult,
  trialFailures,
} from "../../../fs/test/power-loss/crashfs.js";
import { testOnlyLog } from "../../src/fs-log/effect-log.js";
import { runTrial } from "./journal-trial.js";

// Power-loss trials of the fs journal (journal-trial.ts) on crashfs, the FUSE filesystem of
// @artifact-kit/fs's trials. Replay one with
//   POWER_LOSS_MODE=subset POWER_LOSS_SEED=<seed> \
//     node scripts/pnpm.mjs --filter @artifact-kit/effects run test:power-loss

const TRIALS = Number(process.env.POWER_LOSS_TRIALS ?? (process.env.CI === "true" ? 100 : 30));
const REPLAY_SEED = process.env.POWER_LOSS_SEED;
const REPLAY_MODE = process.env.POWER_LOSS_MODE;
/** CI replays one fixed run of seeds; anywhere else a run starts at a new seed. */
const FIRST_SEED = Number(
  process.env.POWER_LOSS_FIRST_SEED ??
    (process.env.CI === "true" ? 20_261_207 : Date.now() % 1_000_000_000),
);
/** A hang limit per trial, not a speed bound. */
const TRIAL_HANG_MS = 60_000;

let crashfs: CrashFs;
beforeAll(async () => {
  // Rolls at a few frames, so that cuts land in the compaction too.
  testOnlyLog.minRollFrames = 8;
  // Fails (never skips) when this machine cannot build or mount crashfs: the script says why.
  crashfs = await CrashFs.start(crashfsBinary());
});
afterAll(async () => {
  await crashfs?.stop();
});

function seedsFor(mode: CutMode, trials = TRIALS): number[] {
  if (REPLAY_SEED !== undefined) return REPLAY_MODE === mode ? [Number(REPLAY_SEED)] : [];
  return Array.from({ length: trials }, (_, i) => FIRST_SEED + i);
}

async function runTrials(mode: CutMode, seeds: readonly number[]): Promise<TrialResult[]> {
  const results: TrialResult[] = [];
  for (const seed of seeds) results.push(await runTrial(crashfs, mode, seed));
  return results;
}

function countBy(values: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

describe.each(["drop", "subset"] as const)("journal power cuts, %s mode", (mode) => {
  it.runIf(seedsFor(mode).length > 0)(
    `every acknowledged change survives ${seedsFor(mode).length} power cuts`,
    async () => {
      const results = await runTrials(mode, seedsFor(mode));
      const inFlight = countBy(results.map((r) => r.inFlight));
      console.log(`journal power-loss ${mode}, POWER_LOSS_FIRST_SEED=${FIRST_SEED}:`, {
        trials: results.length,
        acknowledged: results.reduce((sum, r) => sum + r.acknowledged, 0),
        inFlight,
        cutOn: countBy(results.map((r) => r.report.cutOn)),
      });
      if (REPLAY_SEED !== undefined) console.log(JSON.stringify(results.map((r) => r.report)));
      expect(trialFailures(results)).toEqual([]);
      // The cuts must land inside intents and prunes (which compact), not only between calls.
      if (REPLAY_SEED === undefined && TRIALS >= 20) {
        expect(inFlight.intend ?? 0).toBeGreaterThan(TRIALS / 10);
        expect(inFlight.prune ?? 0).toBeGreaterThan(TRIALS / 20);
      }
    },
    seedsFor(mode).length * TRIAL_HANG_MS,
  );
});

describe("the harness can fail", () => {
  it.runIf(REPLAY_SEED === undefined)(
    "finds lost acknowledged changes when the log's syncs are switched off",
    async () => {
      testOnlyLog.skipSync = true;
      try {
        const results = await runTrials("drop", seedsFor("drop", 20));
        const lost = results.filter((r) => r.violations.some((v) => v.startsWith("lost:")));
        console.log(`journal power-loss without syncs: ${lost.length} of 20 trials lost changes`);
        expect(lost.length).toBeGreaterThan(2);
      } finally {
        testOnlyLog.skipSync = false;
      }
    },
    20 * TRIAL_HANG_MS,
  );
});
