import type { FileHandle } from "node:fs/promises";
import { capacityReached } from "@artifact-kit/core";
import type { FsConfig } from "./config.js";
import { createExclusive, isTaken } from "./io.js";
import { type NamePaths, type ScopePaths, VERSION_FILE_PATTERN, versionFile } from "./layout.js";
import { scanStoreDirectory } from "./records.js";

interface HighWaterHint {
  /** Next version number to try (the high-water known here + 1); 0 until the directory has been scanned. */
  next: number;
}

/**
 * Allocates versions with exclusive-create reservation files (`<v>.r`), never removed: the
 * lock that keeps concurrent writers apart, across processes, and the high-water that keeps a
 * deleted version from coming back. A per-name high-water hint in this process makes the steady
 * state one create; an
 * EEXIST means another process took that version, so the high-water is read again.
 */
export class VersionAllocator {
  readonly #config: FsConfig;
  readonly #highWaterHints = new Map<string, HighWaterHint>();

  constructor(config: FsConfig) {
    this.#config = config;
  }

  /**
   * Reserves the next version with an exclusive create and returns the reservation still
   * open, for the caller to fsync. Versions are allocated as high-water + 1, so reservations
   * are contiguous and the version number is their count.
   */
  async reserve(
    scopeDirs: ScopePaths,
    nameDirs: NamePaths,
  ): Promise<{ version: number; reservation: FileHandle }> {
    const key = `${scopeDirs.digest}/${nameDirs.digest}`;
    let hint = this.#highWaterHints.get(key);
    if (!hint) {
      hint = { next: 0 };
      this.#highWaterHints.set(key, hint);
    }
    if (hint.next === 0) {
      const highWater = await this.#highWater(nameDirs.dir);
      hint.next = Math.max(hint.next, highWater + 1);
    }
    for (;;) {
      // Taken synchronously, so that puts in this process never race each other.
      const version = hint.next;
      hint.next += 1;
      if (version > this.#config.maxVersionsPerName) {
        throw capacityReached("version", "maxVersionsPerName", this.#config.maxVersionsPerName);
      }
      try {
        const path = versionFile(nameDirs.dir, version, "r");
        return { version, reservation: await createExclusive(path, this.#config.fileMode) };
      } catch (error) {
        if (!isTaken(error)) throw error;
        // Another process holds it: catch up with everything reserved since.
        const highWater = await this.#highWater(nameDirs.dir);
        hint.next = Math.max(hint.next, highWater + 1);
      }
    }
  }

  /** Forgets every high-water hint (on close). */
  clear(): void {
    this.#highWaterHints.clear();
  }

  async #highWater(dir: string): Promise<number> {
    let highest = 0;
    for (const entry of await scanStoreDirectory(dir, this.#config.maxScanEntries)) {
      const match = VERSION_FILE_PATTERN.exec(entry);
      if (match) highest = Math.max(highest, Number(match[1]));
    }
    return highest;
  }
}
