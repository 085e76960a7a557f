import { pathExists } from "./io.js";
import { VERSION_FILE_PATTERN, versionFile } from "./layout.js";
import { scanStoreDirectory } from "./records.js";

/** Name directories whose highest version is remembered, least recently used dropped first. */
const MAX_DIRECTORIES = 4_096;

/**
 * The highest reserved version of each name directory, without reading the directory again.
 *
 * Reservations (`<v>.r`) are never removed, so a version seen reserved stays a lower bound for
 * good; and the allocator creates `<v>.r` only while `<v-1>.r` exists (allocator.ts), so above
 * a reservation that exists, the reservations that exist form one unbroken run. The highest is
 * then found by probing upward from the last one seen: one failed `lstat` when nothing was
 * reserved since, a doubling search and a bisection when much was. A directory is read in full
 * only the first time this instance meets it: gaps a put cut short by an earlier release may
 * have left lie below what that read sees, and stay below it.
 */
export class VersionTops {
  readonly #maxDirEntries: number;
  /**
   * Each directory's highest reservation seen, and whether the probe that saw it found it
   * where the one before had left it.
   */
  readonly #tops = new Map<string, { readonly top: number; readonly steady: boolean }>();

  constructor(maxDirEntries: number) {
    this.#maxDirEntries = maxDirEntries;
  }

  /** The highest version reserved in `dir` (0 if none), at some moment during the call. */
  async top(dir: string): Promise<number> {
    const known = this.#tops.get(dir)?.top ?? (await this.#scan(dir));
    const top = await probeUpward(dir, known);
    this.#tops.delete(dir);
    this.#remember(dir, top, top === known);
    return top;
  }

  /**
   * A version this instance has just reserved and published in `dir`: a reservation, so a
   * lower bound to probe upward from, and the next read's best guess of the latest (a read
   * right after one's own put then reads it at once instead of the top seen before).
   */
  published(dir: string, version: number): void {
    const seen = this.#tops.get(dir);
    if (seen === undefined || seen.top < version) this.#remember(dir, version, true);
  }

  /**
   * The highest version last seen reserved in `dir`, without asking the file system, if the
   * probe that saw it found nothing reserved since the one before: a guess worth acting on.
   * While another writer keeps putting, the top moves at nearly every probe, and undefined
   * says so.
   */
  steadyTop(dir: string): number | undefined {
    const seen = this.#tops.get(dir);
    return seen?.steady ? seen.top : undefined;
  }

  clear(): void {
    this.#tops.clear();
  }

  #remember(dir: string, top: number, steady: boolean): void {
    this.#tops.delete(dir);
    this.#tops.set(dir, { top, steady });
    if (this.#tops.size > MAX_DIRECTORIES) {
      this.#tops.delete(this.#tops.keys().next().value as string);
    }
  }

  async #scan(dir: string): Promise<number> {
    let highest = 0;
    for (const entry of await scanStoreDirectory(dir, this.#maxDirEntries)) {
      const match = VERSION_FILE_PATTERN.exec(entry);
      // Any of a version's files: a published version is never above the highest counted.
      if (match) highest = Math.max(highest, Number(match[1]));
    }
    return highest;
  }
}

/**
 * The highest reservation in `dir`, given that `from` is reserved (or 0) and the ones above it
 * form an unbroken run. Reservations only ever appear, so once a version is seen missing
 * nothing reserved before the call started lies at or above it.
 */
export async function probeUpward(dir: string, from: number): Promise<number> {
  let reserved = from;
  let step = 1;
  let missing = reserved + step;
  while (await isReserved(dir, missing)) {
    reserved = missing;
    step *= 2;
    missing = reserved + step;
  }
  // Bisect between the highest seen reserved and the lowest seen missing.
  while (missing - reserved > 1) {
    const middle = reserved + Math.floor((missing - reserved) / 2);
    if (await isReserved(dir, middle)) reserved = middle;
    else missing = middle;
  }
  return reserved;
}

function isReserved(dir: string, version: number): Promise<boolean> {
  return pathExists(versionFile(dir, version, "r"));
}
