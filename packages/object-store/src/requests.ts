import type { Deadline } from "@artifact-kit/core";
import pLimit, { type LimitFunction } from "p-limit";
import { requestFailure } from "./config.js";

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
   * `work`, for the SDK); otherwise it runs to its end, for writes whose outcome must be known.
   */
  run<T>(
    deadline: Deadline,
    operation: string,
    abandon: boolean,
    work: (abortSignal: AbortSignal | undefined) => Promise<T>,
  ): Promise<T> {
    return this.#limit(async () => {
      deadline.check();
      try {
        return await work(abandon ? deadline.toSignal() : undefined);
      } catch (error) {
        throw requestFailure(deadline, error, `${this.#label} ${operation}`);
      }
    });
  }

  /** A best-effort request (a clean-up) under the bound, with no deadline; never rejects. */
  async quietly(work: () => Promise<unknown>): Promise<void> {
    await this.#limit(work).catch(() => undefined);
  }
}

/** The SDK's abortSignal option, left out when there is no signal (exactOptionalPropertyTypes). */
export function withSignal(signal: AbortSignal | undefined): { abortSignal?: AbortSignal } {
  return signal ? { abortSignal: signal } : {};
}
