import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testOnlySwitches } from "../../src/io.js";
import { testOnlyNameOrder } from "../../src/name-order.js";
import {
  CrashFs,
  type CutMode,
  crashfsBinary,
  type TrialResult,
  trialFailures,
} from "./crashfs.js";
import { runTrial } from "./trial.js";

// Power-loss trials: a writer puts (half of its whole puts with an idempotency key), uploads
// and deletes through crashfs, the power is cut at a random mutating operation, and the store
// reopened on what the disk kept must hold every acknowledged put, whole, and answer every
// keyed put's retry as its key says (see trial.ts). Replay one trial with
//   POWER_LOSS_MODE=subset POWER_LOSS_SEED=<seed> \
//     node scripts/pnpm.mjs --filter @artifact-kit/fs run test:power-loss
// and a whole run with POWER_LOSS_FIRST_SEED (printed with each mode's summary).

const TRIALS = Number(process.env.POWER_LOSS_TRIALS ?? (process.env.CI === "true" ? 200 : 40));
const REPLAY_SEED = process.env.POWER_LOSS_SEED;
const REPLAY_MODE = process.env.POWER_LOSS_MODE;
/**
 * CI replays one fixed run of seeds, so that what lands is judged by trials that give the same
 * verdict on every run of a build; anywhere else a run starts at a new seed each time, to find
 * what those miss (as a random CI run once did: a scope whose creation a cut left short).
 */
const CI_FIRST_SEED = 20_261_201;
const FIRST_SEED = Number(
  process.env.POWER_LOSS_FIRST_SEED ??
    (process.env.CI === "true" ? CI_FIRST_SEED : Date.now() % 1_000_000_000),
);

let crashfs: CrashFs;
beforeAll(async () => {
  // Every second new name compacts the ordered name index, so that cuts land in compactions
  // too and the listing checked after each cut reads an index generation and the log (the
  // third name of a scope stays in the log), not a rebuild from the slots.
  testOnlyNameOrder.compactAtLogEntries = 2;
  // Fails (never skips) when this machine cannot build or mount crashfs: the script says why.
  crashfs = await CrashFs.start(crashfsBinary());
});
afterAll(async () => {
  await crashfs?.stop();
});

/**
 * A hang limit, not a speed bound: a minute per trial (one takes well under a second on a
 * quiet machine). A fixed limit for the whole run failed a loaded CI run: 200 trials beside
 * npm test passed 300 s, and the trial cut off mid-way left the mount to the next test.
 */
const TRIAL_HANG_MS = 60_000;
const hangLimit = (trials: number) => trials * TRIAL_HANG_MS;

async function runTrials(mode: CutMode, seeds: readonly number[]): Promise<TrialResult[]> {
  const results: TrialResult[] = [];
  for (const seed of seeds) results.push(await runTrial(crashfs, mode, seed));
  return results;
}

/**
 * Subset-mode seeds that found missing fsyncs, kept as regressions: a delete of "all"
 * (104551311) and of "latest" (104551340) left a published version without data; a put
 * creating a name (104551341) left its slot without a directory.
 */
const FOUND_MISSING_FSYNCS = [104551311, 104551340, 104551341];

/**
 * A subset-mode seed whose cut, in a keyed put's first round of syncs, keeps the key's binding
 * and loses its version file's bytes: the retry must bind the key anew (keys.ts), not fail.
 */
const TORN_BINDINGS = [630246410];

function seedsFor(mode: CutMode): number[] {
  if (REPLAY_SEED !== undefined) return REPLAY_MODE === mode ? [Number(REPLAY_SEED)] : [];
  const random = Array.from({ length: TRIALS }, (_, i) => FIRST_SEED + i);
  return mode === "subset" ? [...FOUND_MISSING_FSYNCS, ...TORN_BINDINGS, ...random] : random;
}

function summary(results: readonly TrialResult[]) {
  const count = (values: string[]) => {
    const counts: Record<string, number> = {};
    for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
    return counts;
  };
  return {
    trials: results.length,
    acknowledged: results.reduce((sum, r) => sum + r.acknowledged, 0),
    inFlight: count(results.map((r) => r.inFlight)),
    cutOn: count(results.map((r) => r.report.cutOn)),
    unsyncedOps: results.reduce((sum, r) => sum + r.report.pending, 0),
    keptOps: results.reduce((sum, r) => sum + r.report.keptOps, 0),
    keptOrTornWrites: results.reduce(
      (sum, r) => sum + r.report.keptWrites + r.report.tornWrites,
      0,
    ),
  };
}

describe.each(["drop", "subset"] as const)("power cuts, %s mode", (mode) => {
  it.runIf(seedsFor(mode).length > 0)(
    `every acknowledged put survives ${seedsFor(mode).length} power cuts`,
    async () => {
      const results = await runTrials(mode, seedsFor(mode));
      console.log(`power-loss ${mode}, POWER_LOSS_FIRST_SEED=${FIRST_SEED}:`, summary(results));
      expect(trialFailures(results)).toEqual([]);
      // The cuts must land inside puts, uploads and deletes, not only between steps (checked
      // on runs large enough for the shares to be stable).
      const inFlight = summary(results).inFlight;
      if (REPLAY_SEED === undefined && TRIALS >= 20) {
        expect((inFlight.put ?? 0) + (inFlight["put:keyed"] ?? 0)).toBeGreaterThan(TRIALS / 10);
        expect(inFlight["put:keyed"] ?? 0).toBeGreaterThan(TRIALS / 40);
        expect(inFlight.upload ?? 0).toBeGreaterThan(TRIALS / 10);
        // Large uploads are rare by design (3% of uploads): not asserted per run, but
        // counted in the summary as "upload:large".
        const deletes = ["delete:latest", "delete:all", "delete:pick"].map((k) => inFlight[k] ?? 0);
        expect(deletes.reduce((sum, n) => sum + n, 0)).toBeGreaterThan(TRIALS / 20);
      }
    },
    hangLimit(seedsFor(mode).length),
  );
});

describe("the harness can fail", () => {
  it.runIf(REPLAY_SEED === undefined)(
    "finds lost acknowledged puts when the adapter's fsyncs are switched off",
    async () => {
      testOnlySwitches.skipFsync = true;
      try {
        const results = await runTrials(
          "drop",
          Array.from({ length: 20 }, (_, i) => FIRST_SEED + i),
        );
        const lost = results.filter((r) => r.violations.some((v) => v.startsWith("lost:")));
        console.log(
          `power-loss without fsyncs: ${lost.length} of ${results.length} trials lost acknowledged puts`,
        );
        expect(lost.length).toBeGreaterThan(results.length / 4);
      } finally {
        testOnlySwitches.skipFsync = false;
      }
    },
    hangLimit(20),
  );
});
