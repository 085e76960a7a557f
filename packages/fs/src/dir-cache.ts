import { lstat } from "node:fs/promises";
import { isMissing } from "./io.js";

/**
 * How long a directory must have been left alone, when it is stat'ed, before what was read
 * from it may be reused while its times stay the same. A change made in the same timestamp
 * tick as the one before it leaves the directory's times as they were (ext4 stamps with a
 * coarse clock; some filesystems have whole seconds); a change made after the settled period
 * always moves them.
 */
const SETTLED_MS = 2_000;
/** Directories remembered per cache, least recently read dropped first. */
const MAX_DIRECTORIES = 4_096;

interface Reading<T> {
  readonly ino: bigint;
  readonly mtimeNs: bigint;
  readonly ctimeNs: bigint;
  readonly value: T;
}

/**
 * What was read from a directory, reused while the directory is provably unchanged: same
 * inode, same modification and change times, and those times older than SETTLED_MS when they
 * were read. Every process that adds, renames or removes an entry moves the times, so the
 * check holds across processes sharing a root; one lstat replaces a directory read when a
 * directory is read far more often than it changes (a scope's names, a name's versions).
 */
export class DirectoryCache<T> {
  readonly #readings = new Map<string, Reading<T>>();

  async read(dir: string, scan: () => Promise<T>): Promise<T> {
    const now = Date.now();
    let stats: Awaited<ReturnType<typeof lstatBig>>;
    try {
      stats = await lstatBig(dir);
    } catch (error) {
      if (!isMissing(error)) throw error;
      this.#readings.delete(dir);
      return scan();
    }
    const known = this.#readings.get(dir);
    this.#readings.delete(dir);
    if (
      known?.ino === stats.ino &&
      known.mtimeNs === stats.mtimeNs &&
      known.ctimeNs === stats.ctimeNs
    ) {
      this.#readings.set(dir, known);
      return known.value;
    }
    const value = await scan();
    const settled = (timeNs: bigint) => now - Number(timeNs / 1_000_000n) > SETTLED_MS;
    if (settled(stats.mtimeNs) && settled(stats.ctimeNs)) {
      this.#readings.set(dir, {
        ino: stats.ino,
        mtimeNs: stats.mtimeNs,
        ctimeNs: stats.ctimeNs,
        value,
      });
      if (this.#readings.size > MAX_DIRECTORIES) {
        this.#readings.delete(this.#readings.keys().next().value as string);
      }
    }
    return value;
  }

  clear(): void {
    this.#readings.clear();
  }
}

const lstatBig = (path: string) => lstat(path, { bigint: true });
