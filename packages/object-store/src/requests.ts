import { type Deadline, unavailable } from "@artifact-kit/core";
import { CLEANUP_TIMEOUT_MS } from "@artifact-kit/core/adapter";
import pLimit, { type LimitFunction } from "p-limit";
import { requestFailure } from "./config.js";

/**
 * How long past its deadline a request that must run to its end (a commit write, a delete)
 * may still wait for its answer. A stalled network never answers; the call then fails with
 * `unavailable` (the write may have happened), as when the reply is cut.
 */
export const COMMIT_GRACE_MS = 5_000;

/**
 * A bucket client's requests to its service, at most `maxConcurrency` in flight (the
 * adapters' `maxConcurrency` option): each checks the deadline when its turn comes, and its
 * failure becomes an ArtifactError named after `label` and the operation (see requestFailure).
 */
export class BucketRequests {
  readonly #label: string;
  readonly #limit: LimitFunction;

  constructor(label: string, maxConcurrency: number) {
    this.#label = label;
    this.#limit = pLimit(maxConcurrency);
  }

  /**
   * Runs one request under the bound. `abandon`: the deadline aborts it (the signal handed to
   * `work`, for the SDK); otherwise it runs to its end, for writes whose outcome must be known,
   * and is given up only COMMIT_GRACE_MS after the deadline, as `unavailable`. Either way the
   * call settles when the signal fires, even if the SDK ignores it.
   */
  run<T>(
    deadline: Deadline,
    operation: string,
    abandon: boolean,
    work: (abortSignal: AbortSignal | undefined) => Promise<T>,
  ): Promise<T> {
    return this.#limit(async () => {
      deadline.check();
      const giveUp = abandon ? { signal: deadline.toSignal(), stop() {} } : graceAfter(deadline);
      try {
        return await raceSignal(work(giveUp.signal), giveUp.signal);
      } catch (error) {
        const what = `${this.#label} ${operation}`;
        if (!abandon && giveUp.signal?.aborted) {
          throw unavailable(`${what}: no answer by the deadline; it may have happened`, error);
        }
        throw requestFailure(deadline, error, what);
      } finally {
        giveUp.stop();
      }
    });
  }

  /**
   * A best-effort request (a clean-up) under the bound; never rejects. It runs under no
   * caller's deadline (a call that timed out must still clean up), but is given up after
   * CLEANUP_TIMEOUT_MS: its signal (for the SDK) aborts, and the caller and the bound's slot
   * are let go even if the SDK goes on waiting on a stalled connection.
   */
  async quietly(work: (abortSignal: AbortSignal) => Promise<unknown>): Promise<void> {
    const giveUp = new AbortController();
    const timer = setTimeout(() => giveUp.abort(), CLEANUP_TIMEOUT_MS);
    const request = this.#limit(() => raceSignal(work(giveUp.signal), giveUp.signal));
    await raceSignal(request, giveUp.signal).catch(() => undefined);
    clearTimeout(timer);
  }
}

/**
 * Settles with `work`, or rejects with the signal's reason as soon as it aborts: for an SDK
 * that takes no signal, the request runs on in the background, its late outcome ignored.
 */
export function raceSignal<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** A signal that aborts COMMIT_GRACE_MS after the deadline does; none without a deadline. */
function graceAfter(deadline: Deadline): { signal: AbortSignal | undefined; stop(): void } {
  const deadlineSignal = deadline.toSignal();
  if (!deadlineSignal) return { signal: undefined, stop() {} };
  const grace = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const startGrace = () => {
    timer = setTimeout(() => grace.abort(deadline.failure()), COMMIT_GRACE_MS);
  };
  if (deadlineSignal.aborted) startGrace();
  else deadlineSignal.addEventListener("abort", startGrace, { once: true });
  return {
    signal: grace.signal,
    stop() {
      clearTimeout(timer);
      deadlineSignal.removeEventListener("abort", startGrace);
    },
  };
}

/** The SDK's abortSignal option, left out when there is no signal (exactOptionalPropertyTypes). */
export function withSignal(signal: AbortSignal | undefined): { abortSignal?: AbortSignal } {
  return signal ? { abortSignal: signal } : {};
}
