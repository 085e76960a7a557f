/**
 * Versions read in turn by number before a walk gives up on numbers and reads the name's
 * directory instead: a run this long of versions deleted or never published is rare (a delete
 * leaves a tombstone, so such runs only grow when versions are deleted), and reading them one
 * number at a time would then cost more than one directory read.
 */
export const MAX_NUMBERED_MISSES = 32;

/** Where a walk over one name's versions finds them. */
export interface VersionNumbers {
  /** The highest version reserved (0 if none): no version above it is published. */
  top(): Promise<number>;
  /** The published versions, ascending, from a directory read. */
  listed(): Promise<readonly number[]>;
}

export interface VersionWalk<T> {
  /** "up" from just above `from`, or "down" from just below it (from the top without it). */
  readonly direction: "up" | "down";
  readonly from?: number;
  /** How many versions to read at once, asked before each batch. */
  readonly batchSize: () => number;
  /** Reads versions at once: undefined for one that is not published (or no longer). */
  readonly read: (versions: readonly number[]) => Promise<readonly (T | undefined)[]>;
  /** Takes a version read; true ends the walk. */
  readonly take: (found: T) => boolean;
  /** Called before each batch (the caller's deadline). */
  readonly check: () => void;
}

/**
 * Walks a name's published versions in order, by version number from the highest reserved
 * one, without reading the name's directory: every number in between is tried, so a version
 * published or deleted by another process is seen as soon as its file is. Only after
 * MAX_NUMBERED_MISSES numbers in a row turn out unpublished does it take the rest from a
 * directory read, which is exact too (the reads still decide).
 */
export async function walkVersions<T>(
  numbers: VersionNumbers,
  walk: VersionWalk<T>,
): Promise<void> {
  const up = walk.direction === "up";
  const top = await numbers.top();
  let at = walk.from ?? (up ? 0 : top + 1);
  let listed: readonly number[] | undefined;
  let misses = 0;
  for (;;) {
    const size = Math.max(1, walk.batchSize());
    const batch = listed ? fromList(listed, at, up, size) : fromNumbers(at, top, up, size);
    if (batch.length === 0) return;
    walk.check();
    at = batch[batch.length - 1] as number;
    for (const found of await walk.read(batch)) {
      if (found === undefined) {
        misses += 1;
        continue;
      }
      misses = 0;
      if (walk.take(found)) return;
    }
    if (!listed && misses >= MAX_NUMBERED_MISSES) listed = await numbers.listed();
  }
}

/** Up to `size` version numbers past `at`, within 1..top. */
function fromNumbers(at: number, top: number, up: boolean, size: number): number[] {
  const batch: number[] = [];
  for (let v = up ? at + 1 : Math.min(at, top + 1) - 1; batch.length < size; v += up ? 1 : -1) {
    if (v < 1 || v > top) break;
    batch.push(v);
  }
  return batch;
}

/** Up to `size` listed versions past `at`. */
function fromList(listed: readonly number[], at: number, up: boolean, size: number): number[] {
  const past = listed.filter((v) => (up ? v > at : v < at));
  return up ? past.slice(0, size) : past.slice(-size).reverse();
}
