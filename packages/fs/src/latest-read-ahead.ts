/**
 * A read of the version a name's directory last had at its top, begun while the walk for the
 * latest version probes for a newer one. When nothing newer was reserved (nearly always, unless
 * another writer keeps putting: then no guess is made, see VersionTops.steadyTop), the walk's
 * first read is this one: the probe's round trip to the file system overlaps the read instead
 * of coming before it.
 *
 * It answers nothing the walk would not: the walk reads the same number first when the probe
 * finds no newer reservation, and a read begun before the probe sees the version as it was
 * at a moment when nothing above it was reserved either (reservations only ever appear).
 */
export class LatestReadAhead<T> {
  #version: number | undefined;
  #found: Promise<T | undefined> | undefined;
  readonly #read: (version: number) => Promise<T | undefined>;
  readonly #release: (found: T) => void;

  constructor(
    guess: number | undefined,
    read: (version: number) => Promise<T | undefined>,
    release: (found: T) => void,
  ) {
    this.#read = read;
    this.#release = release;
    if (guess === undefined || guess < 1) return;
    this.#version = guess;
    this.#found = read(guess);
    // Awaited by the walk, or let go by discard(): never an unhandled rejection meanwhile.
    this.#found.catch(() => {});
  }

  /** `read(version)`, served by the read begun ahead when it is of that version. */
  read(version: number): Promise<T | undefined> {
    const found = this.#found;
    if (found !== undefined && version === this.#version) {
      this.#found = undefined;
      return found;
    }
    return this.#read(version);
  }

  /** Lets go of the read begun ahead if the walk did not take it (its failure is moot). */
  discard(): void {
    const found = this.#found;
    this.#found = undefined;
    found?.then(
      (value) => {
        if (value !== undefined) this.#release(value);
      },
      () => {},
    );
  }
}
