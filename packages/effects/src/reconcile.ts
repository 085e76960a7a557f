import { invalidArgument, validateOptionKeys, validatePositiveInteger } from "@artifact-kit/core";
import type { EffectJournal, EffectReceipt, EffectRecord, TerminalPhase } from "./types.js";
import { validateLease } from "./validate.js";

/** A handler's judgement of one orphan; `receipt` names the version it concerns. */
export interface Reconciliation {
  readonly outcome: TerminalPhase;
  readonly receipt?: EffectReceipt;
}

export interface EffectHandler {
  /** Settles one orphan: observe what happened, undo it if wanted, and say which. */
  reconcile(effect: EffectRecord, signal: AbortSignal): Promise<Reconciliation>;
}

export interface RetryPolicy {
  /** Failed attempts after which an effect is left for an operator (still listed). */
  attempts: number;
  /** The wait after the first failure; doubled per further failure. */
  backoffMs: number;
  maxBackoffMs: number;
}

export interface ReconcileOptions {
  /** The reconciler's identity, recorded in each lease it takes. */
  owner: string;
  /** Most orphans this pass claims. */
  limit: number;
  /** The pass stops claiming after this long; a handler call is cut off at the deadline. */
  timeBudgetMs: number;
  /** How long each claimed orphan is this pass's. */
  leaseMs: number;
  retry: RetryPolicy;
  /**
   * The time source (ms since epoch) for the pass's budget and the handler's deadline
   * (default `Date.now`); tests pass the journal's clock to drive leases to their edges.
   */
  clock?: () => number;
}

export interface ReconcileReport {
  readonly settled: ReadonlyArray<{ effectId: string; outcome: TerminalPhase }>;
  readonly failed: ReadonlyArray<{ effectId: string; attempts: number; error: string }>;
  /** Claimed but not handled before the time budget ran out; claimable again at lease end. */
  readonly deferred: readonly string[];
}

export const DEFAULT_RETRY: RetryPolicy = Object.freeze({
  attempts: 5,
  backoffMs: 1000,
  maxBackoffMs: 60_000,
});

function validateRetry(value: unknown): RetryPolicy {
  const retry = validateOptionKeys(value, ["attempts", "backoffMs", "maxBackoffMs"], "retry");
  const policy = {
    attempts: validatePositiveInteger(retry.attempts, "retry.attempts"),
    backoffMs: validatePositiveInteger(retry.backoffMs, "retry.backoffMs"),
    maxBackoffMs: validatePositiveInteger(retry.maxBackoffMs, "retry.maxBackoffMs"),
  };
  if (policy.maxBackoffMs < policy.backoffMs) {
    throw invalidArgument("retry.maxBackoffMs", "must be at least retry.backoffMs");
  }
  return policy;
}

function validateOptions(value: unknown): Required<ReconcileOptions> {
  const options = validateOptionKeys(
    value,
    ["owner", "limit", "timeBudgetMs", "leaseMs", "retry", "clock"],
    "reconcileOptions",
  );
  const { owner, leaseMs } = validateLease({ owner: options.owner, leaseMs: options.leaseMs });
  if (options.clock !== undefined && typeof options.clock !== "function") {
    throw invalidArgument("clock", "must be a function returning ms since the epoch");
  }
  return {
    clock: (options.clock as (() => number) | undefined) ?? Date.now,
    owner,
    leaseMs,
    limit: validatePositiveInteger(options.limit, "limit"),
    timeBudgetMs: validatePositiveInteger(options.timeBudgetMs, "timeBudgetMs"),
    retry: options.retry === undefined ? DEFAULT_RETRY : validateRetry(options.retry),
  };
}

function message(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** Runs the handler with a deadline: the lease's end or the pass's, whichever is first. */
async function judge(
  handler: EffectHandler,
  effect: EffectRecord,
  deadline: number,
  clock: () => number,
): Promise<Reconciliation> {
  const controller = new AbortController();
  const wait = Math.max(0, deadline - clock());
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`the handler took longer than ${wait} ms`));
    }, wait);
  });
  try {
    return await Promise.race([handler.reconcile(effect, controller.signal), expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * One bounded pass over orphans: effects left `intended` or `applied` whose lease expired.
 * Each is claimed under a new fencing token (so a stale owner can no longer write it), judged
 * by the handler and settled; a failure is recorded on the effect and retried after a backoff
 * by a later pass, until `retry.attempts` failures leave it for an operator.
 */
export async function reconcile(
  journal: EffectJournal,
  handler: EffectHandler,
  options: ReconcileOptions,
): Promise<ReconcileReport> {
  const { owner, limit, timeBudgetMs, leaseMs, retry, clock } = validateOptions(options);
  if (typeof handler?.reconcile !== "function") {
    throw invalidArgument("handler", "must have a reconcile(effect) method");
  }
  const passEnds = clock() + timeBudgetMs;
  // Measured here, on this process's clock, from before the claim: never past the lease the
  // journal granted on its own clock, which may differ from ours.
  const leaseEnds = clock() + leaseMs;
  const claimed = await journal.claimOrphans({
    owner,
    leaseMs,
    limit: Math.min(limit, journal.capabilities().limits.maxBatch),
    maxAttempts: retry.attempts,
  });
  const settled: Array<{ effectId: string; outcome: TerminalPhase }> = [];
  const failed: Array<{ effectId: string; attempts: number; error: string }> = [];
  const deferred: string[] = [];
  for (const effect of claimed) {
    const { effectId } = effect;
    const token = effect.lease.fencingToken;
    if (clock() >= passEnds) {
      deferred.push(effectId);
      continue;
    }
    try {
      const deadline = Math.min(passEnds, leaseEnds);
      const { outcome, receipt } = await judge(handler, effect, deadline, clock);
      await journal.settle(effectId, token, outcome, receipt);
      settled.push({ effectId, outcome });
    } catch (error) {
      const attempts = effect.attempts + 1;
      const backoff = Math.min(retry.maxBackoffMs, retry.backoffMs * 2 ** (attempts - 1));
      const text = message(error);
      // If even the failure cannot be recorded, the lease runs out and a later pass retries.
      await journal.recordFailure(effectId, token, text, backoff).catch(() => {});
      failed.push({ effectId, attempts, error: text });
    }
  }
  return Object.freeze({ settled, failed, deferred });
}
