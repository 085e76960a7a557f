/** Names remembered per service instance; the oldest are forgotten first. */
const MAX_ENTRIES = 10_000;

/**
 * The highest version an adapter instance allocated or saw, per (scope, name) key. A hint
 * only: the backend's create-only allocation records decide. Claims are synchronous, so
 * concurrent puts in one process never race each other for the same version.
 */
export class HighWaterCache {
  readonly #marks = new Map<string, number>();

  get(key: string): number | undefined {
    return this.#marks.get(key);
  }

  /** Remembers that versions up to `known` exist, without claiming one. */
  observe(key: string, known: number): void {
    if (known > (this.#marks.get(key) ?? 0)) this.#remember(key, known);
  }

  /** Takes the next version above both `known` and anything claimed here before. */
  claimAbove(key: string, known: number): number {
    const version = Math.max(known, this.#marks.get(key) ?? 0) + 1;
    this.#remember(key, version);
    return version;
  }

  clear(): void {
    this.#marks.clear();
  }

  /** Stores the mark as the most recently used; the oldest are forgotten past MAX_ENTRIES. */
  #remember(key: string, version: number): void {
    this.#marks.delete(key);
    this.#marks.set(key, version);
    if (this.#marks.size > MAX_ENTRIES) {
      const oldest = this.#marks.keys().next().value;
      if (oldest !== undefined) this.#marks.delete(oldest);
    }
  }
}
