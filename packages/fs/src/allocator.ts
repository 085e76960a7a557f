import { capacityReached } from "@artifact-kit/core";
import { type FsConfig, versionDirEntries } from "./config.js";
import { isTaken } from "./io.js";
import { type NamePaths, VERSION_FILE_PATTERN, versionFile } from "./layout.js";
import { scanStoreDirectory } from "./records.js";
import { probeUpward } from "./version-tops.js";

interface NameAllocation {
  /** Next version number to try (the high-water known here + 1); 0 until the directory has been scanned. */
  next: number;
  /** The reservation being created for this name, if any: the next one waits for it. */
  pending: Promise<unknown>;
}

/**
 * Allocates versions with exclusive-create reservation files (`<v>.r`, the version file
 * itself, or an upload's staging file linked there), never removed: the
 * lock that keeps concurrent writers apart, across processes, and the high-water that keeps a
 * deleted version from coming back. A per-name high-water hint in this process makes the steady
 * state one create; an EEXIST means another process took that version, so the high-water is
 * found again by probing upward from it (the reservations above one that exists are one
 * unbroken run, see below), not by reading the directory.
 *
 * Reservations are gap-free: `<v>.r` is only ever created while `<v-1>.r` exists (the hint is
 * the high-water + 1, from a scan, this process's own last create, or a probe upward after
 * another process's), and a name's creates in one process are made one at a time, so that a failed or
 * killed create never leaves a later one standing above a hole. Readers rely on this to find a
 * name's highest version by probing upward from one they have seen (version-tops.ts).
 */
export class VersionAllocator {
  readonly #config: FsConfig;
  readonly #names = new Map<string, NameAllocation>();

  constructor(config: FsConfig) {
    this.#config = config;
  }

  /**
   * Reserves the next version with `create`, an exclusive create of the path it is given
   * (failing with EEXIST when the path exists), and returns what it made.
   */
  reserve<T>(
    nameDirs: NamePaths,
    create: (path: string) => Promise<T>,
  ): Promise<{ version: number; reservation: T }> {
    const key = nameDirs.dir;
    let allocation = this.#names.get(key);
    if (!allocation) {
      allocation = { next: 0, pending: Promise.resolve() };
      this.#names.set(key, allocation);
    }
    const current = allocation;
    const reserved = current.pending.then(() => this.#reserveNext(current, nameDirs.dir, create));
    current.pending = reserved.catch(() => undefined);
    return reserved;
  }

  /** Forgets every high-water hint (on close). */
  clear(): void {
    this.#names.clear();
  }

  async #reserveNext<T>(
    allocation: NameAllocation,
    dir: string,
    create: (path: string) => Promise<T>,
  ): Promise<{ version: number; reservation: T }> {
    if (allocation.next === 0) allocation.next = (await this.#highWater(dir)) + 1;
    for (;;) {
      const version = allocation.next;
      if (version > this.#config.maxVersionsPerName) {
        throw capacityReached("version", "maxVersionsPerName", this.#config.maxVersionsPerName);
      }
      try {
        const reservation = await create(versionFile(dir, version, "r"));
        allocation.next = version + 1;
        return { version, reservation };
      } catch (error) {
        // Any other failure leaves the hint where it was: the version is tried again.
        if (!isTaken(error)) throw error;
        // Another process holds it: catch up with everything reserved since.
        allocation.next = (await probeUpward(dir, version)) + 1;
      }
    }
  }

  async #highWater(dir: string): Promise<number> {
    let highest = 0;
    for (const entry of await scanStoreDirectory(dir, versionDirEntries(this.#config))) {
      const match = VERSION_FILE_PATTERN.exec(entry);
      if (match) highest = Math.max(highest, Number(match[1]));
    }
    return highest;
  }
}
