/** Names remembered per service instance; the oldest are forgotten first. */
const MAX_ENTRIES = 10_000;

/**
 * The highest version this instance allocated or saw, per (scope, name). A hint only: the
 * bucket's allocation objects decide. Claims are synchronous, so concurrent puts in one
 * process never race each other for the same version.
 */
export class HighWaterCache {
  readonly #marks = new Map<string, number>();

  get(key: string): number | undefined {
    return this.#marks.get(key);
  }

  /** Takes the next version above both `known` and anything claimed here before. */
  claimAbove(key: string, known: number): number {
    const version = Math.max(known, this.#marks.get(key) ?? 0) + 1;
    this.#marks.delete(key);
    this.#marks.set(key, version);
    if (this.#marks.size > MAX_ENTRIES) {
      const oldest = this.#marks.keys().next().value;
      if (oldest !== undefined) this.#marks.delete(oldest);
    }
    return version;
  }

  /** Raises the mark to `version` if it is higher: what a reader learned from the bucket. */
  observe(key: string, version: number): void {
    if (version > (this.#marks.get(key) ?? 0)) this.claimAbove(key, version - 1);
  }

  clear(): void {
    this.#marks.clear();
  }
}
