import {
  Deadline,
  invalidArgument,
  MAX_TIMEOUT_MS,
  validatePositiveInteger,
} from "@artifact-kit/core";

const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** `requestTimeoutMs`: a whole number of milliseconds, 1..MAX_TIMEOUT_MS like any deadline. */
export function validateRequestTimeout(given: unknown): number {
  if (given === undefined) return DEFAULT_REQUEST_TIMEOUT_MS;
  const timeoutMs = validatePositiveInteger(given, "requestTimeoutMs");
  if (timeoutMs > MAX_TIMEOUT_MS) {
    throw invalidArgument("requestTimeoutMs", `must be at most ${MAX_TIMEOUT_MS}`);
  }
  return timeoutMs;
}

/**
 * Runs one request's work under its deadline: `work` gets a signal that aborts at the
 * deadline, and the returned promise fails with `timeout` then, even when the work (a
 * resource provider that ignores its signal, say) has not settled.
 */
export function withinDeadline<T>(
  timeoutMs: number,
  work: (deadline: Deadline, signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const deadline = Deadline.start({ timeoutMs });
  const signal = AbortSignal.timeout(timeoutMs);
  return new Promise<T>((resolve, reject) => {
    // The signal fires at the deadline, so the deadline has failed with `timeout` by then.
    const onTimeout = () => reject(deadline.failure(deadline.expiresAt));
    signal.addEventListener("abort", onTimeout, { once: true });
    work(deadline, signal)
      .then(resolve, reject)
      .finally(() => signal.removeEventListener("abort", onTimeout));
  });
}
