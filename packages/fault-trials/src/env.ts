import type { FaultTrialOptions } from "./trials.js";

/** Operations per trial: with most of them faulted, 8 trials hit well over 200 requests. */
const OPERATIONS_PER_TRIAL = 40;

/**
 * The fault trials' size as CI runs them: 8 trials from seed 30000, 4 at a time;
 * FAULT_TRIALS=N runs N trials, FAULT_SEED=S starts from another seed (trial i has seed
 * S + i, so one failing trial replays alone). `minimumFaults` is what the run must hit.
 */
export function trialOptionsFromEnv(
  env: NodeJS.ProcessEnv = process.env,
): FaultTrialOptions & { minimumFaults: number; testTimeoutMs: number } {
  const trials = Number(env.FAULT_TRIALS ?? 8);
  const seed = Number(env.FAULT_SEED ?? 30_000);
  if (!Number.isInteger(trials) || trials < 1) {
    throw new Error("FAULT_TRIALS must be a whole number of at least 1");
  }
  if (!Number.isInteger(seed) || seed < 0) throw new Error("FAULT_SEED must be a whole number");
  return {
    seed,
    trials,
    operationsPerTrial: OPERATIONS_PER_TRIAL,
    parallel: 4,
    minimumFaults: trials * 25,
    // A bound for a run that hangs, never a measure: one trial takes seconds on a quiet
    // machine, but 8 trials took over 360 s (the bound before) beside a loaded CI run.
    testTimeoutMs: 120_000 + trials * 90_000,
  };
}
