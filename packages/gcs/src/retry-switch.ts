import type { Bucket } from "@google-cloud/storage";

/**
 * Keeps the client's retries as the caller configured them. @google-cloud/storage 7 turns
 * retries off on the Storage object itself (`retryOptions.autoRetry = false`) around calls
 * without a precondition (compose, an unconditional delete, setMetadata), then sets it back
 * to the value each File saw when it was made. A File made while such a call was in flight
 * saw "off", so overlapping calls (a streamed upload's clean-up makes three) left retries off
 * for good: every later request of that Storage failed at its first lost reply or 503. The
 * calls this adapter makes without a precondition are all safe to repeat (a compose into
 * the upload's own staging name, removals of its staging objects, adding a flag), so it puts
 * the setting back before and after each of its calls.
 */
export class RetrySwitch {
  readonly #options: Bucket["storage"]["retryOptions"];
  readonly #configured: boolean | undefined;

  constructor(bucket: Bucket) {
    this.#options = bucket.storage.retryOptions;
    this.#configured = this.#options.autoRetry;
  }

  /** Runs one call with the setting put back before and after it. */
  async around<T>(call: () => Promise<T>): Promise<T> {
    this.restore();
    try {
      return await call();
    } finally {
      this.restore();
    }
  }

  restore(): void {
    if (this.#configured !== undefined && this.#options.autoRetry !== this.#configured) {
      this.#options.autoRetry = this.#configured;
    }
  }
}
