import { ArtifactError, invalidArgument } from "./errors.js";
import { MAX_TIMEOUT_MS, MIN_TIMEOUT_MS } from "./limits.js";

/**
 * A request's `timeoutMs` as whole milliseconds, or undefined when none was given. Any finite
 * positive number is accepted and rounded up: a timeout computed from a clock
 * (`deadline - performance.now()`) is a fraction, timers downstream (setTimeout, p-queue,
 * backend clients) take whole milliseconds, and rounding up means a deadline is never
 * shorter than asked. Zero, negatives, NaN, infinities, non-numbers and anything above
 * MAX_TIMEOUT_MS once rounded are `invalid_argument`.
 */
export function parseTimeoutMs(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const whole = typeof value === "number" && value > 0 ? Math.ceil(value) : Number.NaN;
  if (!(whole >= MIN_TIMEOUT_MS && whole <= MAX_TIMEOUT_MS)) {
    throw invalidArgument(
      "timeoutMs",
      `must be a number of milliseconds above 0 and at most ${MAX_TIMEOUT_MS} (fractions are rounded up)`,
    );
  }
  return whole;
}

/**
 * One absolute deadline made from `timeoutMs` and `signal`, fixed when the request starts.
 * Adapters call `check()` immediately before their commit point, so an expired request
 * publishes nothing.
 */
export class Deadline {
  /** Milliseconds since the epoch, or undefined for no time limit. */
  readonly expiresAt: number | undefined;
  readonly signal: AbortSignal | undefined;
  /** Set when a timer signal made by toSignal() has fired (see there). */
  #timerFired = false;

  private constructor(expiresAt: number | undefined, signal: AbortSignal | undefined) {
    this.expiresAt = expiresAt;
    this.signal = signal;
  }

  static readonly none = new Deadline(undefined, undefined);

  /**
   * Validates `timeoutMs` (see parseTimeoutMs) and `signal`, then fixes the deadline at `now`.
   */
  static start(options: { timeoutMs?: unknown; signal?: unknown }, now = Date.now()): Deadline {
    const timeoutMs = parseTimeoutMs(options.timeoutMs);
    const { signal } = options;
    if (signal !== undefined && !(signal instanceof AbortSignal)) {
      throw invalidArgument("signal", "must be an AbortSignal");
    }
    if (timeoutMs === undefined && signal === undefined) return Deadline.none;
    return new Deadline(timeoutMs === undefined ? undefined : now + timeoutMs, signal);
  }

  /** Milliseconds left, or undefined when there is no time limit. */
  remainingMs(now = Date.now()): number | undefined {
    return this.expiresAt === undefined ? undefined : Math.max(0, this.expiresAt - now);
  }

  /** The error this request has failed with, if it has: aborted by its signal, or timed out. */
  failure(now = Date.now()): ArtifactError | undefined {
    if (this.signal?.aborted) {
      const reason: unknown = this.signal.reason;
      // AbortSignal.timeout() aborts with a TimeoutError: that is a deadline, not a cancellation.
      if (reason instanceof DOMException && reason.name === "TimeoutError") {
        return new ArtifactError("timeout", "the request's signal timed out", { cause: reason });
      }
      return new ArtifactError("aborted", "the request was aborted", { cause: reason });
    }
    if (this.#timerFired || (this.expiresAt !== undefined && now >= this.expiresAt)) {
      return new ArtifactError("timeout", "the request's deadline passed");
    }
    return undefined;
  }

  /** Throws `aborted` or `timeout` when the request may no longer commit. */
  check(now = Date.now()): void {
    const failure = this.failure(now);
    if (failure) throw failure;
  }

  /**
   * What is left of this deadline as a call's options (`timeoutMs`, `signal`), for handing a
   * request on to another service under the same absolute deadline.
   */
  toRequestOptions(now = Date.now()): { timeoutMs?: number; signal?: AbortSignal } {
    const remaining = this.remainingMs(now);
    return {
      ...(remaining === undefined ? {} : { timeoutMs: Math.max(1, Math.ceil(remaining)) }),
      ...(this.signal ? { signal: this.signal } : {}),
    };
  }

  /** A signal that fires at the deadline or on the caller's abort, for backend calls. */
  toSignal(now = Date.now()): AbortSignal | undefined {
    const remaining = this.remainingMs(now);
    const timer = remaining === undefined ? undefined : AbortSignal.timeout(Math.max(1, remaining));
    // Timers run on the event loop's clock, which may fire a moment before Date.now() reaches
    // the deadline: once this timer has fired, the request has timed out, whatever the clock.
    timer?.addEventListener(
      "abort",
      () => {
        this.#timerFired = true;
      },
      { once: true },
    );
    if (timer && this.signal) return AbortSignal.any([this.signal, timer]);
    return timer ?? this.signal;
  }
}
