import { ArtifactError, invalidArgument } from "./errors.js";
import { MAX_TIMEOUT_MS, MIN_TIMEOUT_MS } from "./limits.js";

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
   * Validates `timeoutMs` (a whole number, 1..300000) and `signal`, then fixes the deadline at
   * `now`. Fractions are refused rather than rounded: timers downstream (setTimeout, p-queue,
   * backend clients) take whole milliseconds, and a silent rounding would move the deadline.
   */
  static start(options: { timeoutMs?: unknown; signal?: unknown }, now = Date.now()): Deadline {
    const { timeoutMs, signal } = options;
    if (
      timeoutMs !== undefined &&
      (typeof timeoutMs !== "number" ||
        !Number.isInteger(timeoutMs) ||
        timeoutMs < MIN_TIMEOUT_MS ||
        timeoutMs > MAX_TIMEOUT_MS)
    ) {
      throw invalidArgument(
        "timeoutMs",
        `must be a whole number of milliseconds from ${MIN_TIMEOUT_MS} to ${MAX_TIMEOUT_MS}`,
      );
    }
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
