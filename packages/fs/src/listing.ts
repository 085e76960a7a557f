import { join } from "node:path";
import { compareUtf8 } from "@artifact-kit/core";
import { DirectoryCache } from "./dir-cache.js";
import { type ScopePaths, SLOT_PATTERN } from "./layout.js";
import { readNameSnapshot, writeNameSnapshot } from "./name-snapshot.js";
import { scanStoreDirectory } from "./records.js";
import { readNameSlot } from "./slots.js";

/** Slot files read in parallel when listing names from a cold cache. */
const SLOT_READ_BATCH = 64;
/** Slot files one refresh must have read before it leaves a name snapshot for the next instance. */
const SNAPSHOT_AFTER_SLOT_READS = 256;

interface NameIndex {
  /** Verified name slots of one scope: digest -> name. Slots are immutable once linked. */
  readonly byDigest: Map<string, string>;
  /** The names above in UTF-8 byte order. */
  sorted: readonly string[];
}

/**
 * Every name ever created in a scope, from its name slots. Slots are immutable once linked,
 * so each is read and verified once per instance; a later call reads only the slots that
 * other processes (or this one) have linked since. An instance's first read takes what it
 * can from the scope's name snapshot (see name-snapshot.ts) and reads only the other slots.
 */
export class NameIndexes {
  readonly #maxScanEntries: number;
  readonly #fileMode: number;
  readonly #indexes = new Map<string, NameIndex>();
  readonly #reads = new DirectoryCache<readonly string[]>();

  constructor(maxScanEntries: number, fileMode: number) {
    this.#maxScanEntries = maxScanEntries;
    this.#fileMode = fileMode;
  }

  /** Every name ever created in a scope (live or not), in UTF-8 byte order. */
  knownNames(scopeDirs: ScopePaths): Promise<readonly string[]> {
    // The names directory is read again only when a slot was linked since.
    return this.#reads.read(scopeDirs.names, () => this.#refresh(scopeDirs));
  }

  async #refresh(scopeDirs: ScopePaths): Promise<readonly string[]> {
    let index = this.#indexes.get(scopeDirs.digest);
    if (!index) {
      index = { byDigest: new Map(), sorted: [] };
      this.#indexes.set(scopeDirs.digest, index);
    }
    const known = index.byDigest;
    const unread: string[] = [];
    for (const entry of await scanStoreDirectory(scopeDirs.names, this.#maxScanEntries)) {
      const digest = SLOT_PATTERN.exec(entry)?.[1];
      if (digest !== undefined && !known.has(digest)) unread.push(digest);
    }
    if (unread.length === 0) return index.sorted;
    const fromSnapshot = known.size === 0 ? await readNameSnapshot(scopeDirs) : new Map();
    const slotsToRead = unread.filter((digest) => {
      const name = fromSnapshot.get(digest);
      if (name !== undefined) known.set(digest, name);
      return name === undefined;
    });
    for (let i = 0; i < slotsToRead.length; i += SLOT_READ_BATCH) {
      const batch = slotsToRead.slice(i, i + SLOT_READ_BATCH);
      const names = await Promise.all(
        batch.map((digest) => readNameSlot(join(scopeDirs.names, `${digest}.json`), digest)),
      );
      names.forEach((name, j) => {
        if (name !== undefined) known.set(batch[j] as string, name);
      });
    }
    index.sorted = Object.freeze([...known.values()].sort(compareUtf8));
    if (slotsToRead.length >= SNAPSHOT_AFTER_SLOT_READS) {
      await writeNameSnapshot(scopeDirs, index.sorted, this.#fileMode);
    }
    return index.sorted;
  }

  /** Forgets every index (on close). */
  clear(): void {
    this.#indexes.clear();
    this.#reads.clear();
  }
}
