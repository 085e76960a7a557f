import type { Deadline } from "../deadline.js";
import { overloaded } from "../errors.js";

/**
 * How an adapter keeps retrying work that lost a race to another writer (a create-only write
 * that found its version taken). Contention on one name is ordinary (parallel tool calls of
 * one agent), so the limit is time, not a count of attempts: the request's own deadline when
 * it has one, else `maxWaitMs`, a bound the adapter declares in its capabilities.
 */
export interface ContentionPolicy {
  /** How long a request without a time limit of its own keeps trying, in milliseconds. */
  readonly maxWaitMs: number;
  /** The bound's name, as in the adapter's options and `capabilities().quotas.bounds`. */
  readonly boundName: string;
  /** Ceiling of the first pause (default 4 ms); it doubles per lost race up to `maxPauseMs`. */
  readonly firstPauseMs?: number;
  /** Largest ceiling of one pause (default 256 ms). */
  readonly maxPauseMs?: number;
  /** Source of jitter in [0, 1) (default Math.random). */
  readonly random?: () => number;
}

export const DEFAULT_FIRST_PAUSE_MS = 4;
export const DEFAULT_MAX_PAUSE_MS = 256;

/**
 * The pause after the `lostRaces`-th lost race: uniformly random below a ceiling that doubles
 * per lost race up to a cap ("full jitter"). Random rather than fixed, so writers that lost
 * together do not come back together and collide again.
 */
export function contentionPauseMs(
  lostRaces: number,
  random: () => number = Math.random,
  firstPauseMs = DEFAULT_FIRST_PAUSE_MS,
  maxPauseMs = DEFAULT_MAX_PAUSE_MS,
): number {
  const ceiling = Math.min(maxPauseMs, firstPauseMs * 2 ** Math.min(lostRaces - 1, 30));
  return Math.floor(random() * ceiling);
}

/**
 * Runs `attempt` (numbered from 1) until it returns a result, pausing with jittered
 * exponential backoff after each `undefined` (a lost race). Fails with the deadline's own
 * error (`timeout` or `aborted`) when the request's deadline or signal ends it, and with
 * `overloaded` (detail: the policy's bound) when a request without a time limit has tried
 * for `maxWaitMs`. Errors `attempt` throws end the retries as they are.
 */
export async function retryUnderContention<T>(
  deadline: Deadline,
  policy: ContentionPolicy,
  attempt: (attemptNumber: number) => Promise<T | undefined>,
): Promise<T> {
  const startedAt = Date.now();
  const giveUpAt = deadline.expiresAt ?? startedAt + policy.maxWaitMs;
  for (let attemptNumber = 1; ; attemptNumber++) {
    deadline.check();
    const result = await attempt(attemptNumber);
    if (result !== undefined) return result;
    const now = Date.now();
    // With a deadline of its own, the request ends here with `timeout` once it has passed.
    deadline.check(now);
    if (now >= giveUpAt) {
      throw overloaded(
        `lost the race for a free version ${attemptNumber} times in ${now - startedAt} ms; too many concurrent writers`,
        policy.boundName,
        policy.maxWaitMs,
      );
    }
    const pause = contentionPauseMs(
      attemptNumber,
      policy.random,
      policy.firstPauseMs,
      policy.maxPauseMs,
    );
    await pauseUnlessAborted(Math.min(pause, giveUpAt - now), deadline.signal);
  }
}

/** Resolves after `ms`, or at once when `signal` aborts (the caller's next check reports it). */
function pauseUnlessAborted(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
