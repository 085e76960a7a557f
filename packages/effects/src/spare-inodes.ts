/** Something made on disk ahead of use, and how to take it back when it is not used. */
export interface Spare {
  /** When it was made (ms since epoch, this process's clock). */
  readonly madeAt: number;
  discard(): Promise<void>;
}

/**
 * Keeps one staged file (or directory) made ahead of use. Creating an inode costs more than
 * writing a small record into it (on some virtualised disks, several times more), and a
 * journaled write waits on the service call between two journal writes: the next inode is
 * made in that wait, off the caller's path.
 *
 * Every take starts the next one, so concurrent takers each get their own, made while they
 * wait when none was ready. A spare older than `maxAgeMs` is not handed out: it lives in a
 * directory whose leftovers a prune removes once they are old enough (see the journal's
 * sweep), so an old one may be gone.
 */
export class SpareInodes<T extends Spare> {
  readonly #make: () => Promise<T>;
  readonly #maxAgeMs: number;
  #next: Promise<T> | undefined;

  constructor(make: () => Promise<T>, maxAgeMs: number) {
    this.#make = make;
    this.#maxAgeMs = maxAgeMs;
  }

  async take(): Promise<T> {
    const ready = this.#next;
    this.#next = this.#make();
    this.#next.catch(() => {}); // reported to whoever takes it
    const spare = await ready?.catch(() => undefined);
    if (spare !== undefined && Date.now() - spare.madeAt < this.#maxAgeMs) return spare;
    await spare?.discard();
    return this.#make();
  }

  /** Removes the spare made ahead, if any (on close). */
  async discard(): Promise<void> {
    const ready = this.#next;
    this.#next = undefined;
    await (await ready?.catch(() => undefined))?.discard();
  }
}
