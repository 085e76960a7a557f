import { link, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { compareUtf8, corruptArtifact, isArtifactError, sha256Hex } from "@artifact-kit/core";
import { indexAfter, indexFrom } from "@artifact-kit/core/adapter";
import { namesDirEntries } from "./config.js";
import { DirectoryCache } from "./dir-cache.js";
import {
  createDurably,
  type FsDurability,
  isMissing,
  isTaken,
  pathExists,
  removeQuietly,
  syncDirectory,
  type WriteSettings,
} from "./io.js";
import type { ScopePaths } from "./layout.js";
import { NameIndexes } from "./listing.js";
import {
  encodeNameIndex,
  type IndexHeader,
  openNameIndex,
  readIndexBlock,
  readIndexHeader,
} from "./name-index-file.js";
import type { ReadOnlyFile } from "./read-only-file.js";
import { scanStoreDirectory } from "./records.js";
import { readNameSlot } from "./slots.js";

// A scope's names in UTF-8 order, readable a page at a time (see "Name order" in the README):
//
//   name-log/<nd>[.<hex>].json  one entry per name created since the index was last
//                        compacted: a hard link of the name slot's fsynced staging file, made
//                        durable before the slot itself is linked. A name of up to 92 bytes
//                        is also spelled in hex in the file's name, so that reading the log
//                        is one directory read (the name is checked against the digest).
//   name-index/<g>.idx   generation g of the ordered index (name-index-file.ts), immutable
//
// The names of a scope are those of the newest generation plus those in the log. A compaction
// reads the log, then the newest generation g, and links g + 1 (an exclusive link: of two
// compactions built on g, one wins); only the winner, and only while g + 1 is still the newest,
// removes the log entries it folded in. A reader reads the log first, then the newest
// generation, so an entry gone from the log is always in what it reads. Names are never
// removed, so generations only grow. Anything missing or damaged (no generation yet: a new
// scope or a store of the previous layout) is rebuilt from the name slots themselves.

/**
 * TEST ONLY, not exported by the package. `compactAtLogEntries`: log entries that make a put
 * of a new name compact the index (the crash and race tests lower it so that compactions
 * happen all the time). `beforeRebuildLinks`: called by a rebuild between its reads and its
 * link, for a test to run another instance's work in that window.
 */
export const testOnlyNameOrder: {
  compactAtLogEntries: number;
  beforeRebuildLinks: (() => Promise<void>) | undefined;
} = { compactAtLogEntries: 128, beforeRebuildLinks: undefined };
/** Most entries a scope's name-index directory may hold (generations plus leftovers). */
const MAX_INDEX_DIR_ENTRIES = 1_000;
const GENERATION_PATTERN = /^([1-9][0-9]{0,15})\.idx$/;
const LOG_ENTRY_PATTERN = /^([0-9a-f]{64})(?:\.((?:[0-9a-f]{2}){1,92}))?\.json$/;
/** Longest name spelled in a log entry's file name (which stays within 255 bytes). */
const MAX_SPELLED_NAME_BYTES = 92;
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Where a page starts: at or after `from`. */
export interface NameStart {
  readonly from: string;
  readonly inclusive: boolean;
}

interface LogEntry {
  readonly file: string;
  readonly digest: string;
  readonly name: string;
}

/** The log entry's file name for a name (with the name in hex when it is short enough). */
function logFile(digest: string, name: string): string {
  const bytes = Buffer.from(name);
  return bytes.byteLength <= MAX_SPELLED_NAME_BYTES
    ? `${digest}.${bytes.toString("hex")}.json`
    : `${digest}.json`;
}

/** The name a log entry's file name spells, checked against its digest. */
function spelledName(digest: string, hex: string): string {
  let name: string;
  try {
    name = utf8.decode(Buffer.from(hex, "hex"));
  } catch (error) {
    throw corruptArtifact("a name log entry is not UTF-8", { kind: "name" }, error);
  }
  if (sha256Hex(name) !== digest) {
    throw corruptArtifact("a name log entry names another name", { kind: "name" });
  }
  return name;
}

const isIndexDamage = (error: unknown) =>
  isArtifactError(error, "corrupt_artifact") &&
  ["name-index", "name"].includes(String(error.detail?.kind));

export class NameOrder {
  readonly #maxLogEntries: number;
  readonly #files: WriteSettings;
  readonly #dirMode: number;
  /** The slot scan a rebuild reads (the layout before the index, and repair of damage). */
  readonly #slotScan: NameIndexes;
  readonly #logs = new DirectoryCache<readonly LogEntry[]>();
  readonly #headers = new Map<string, IndexHeader>();
  readonly #blocks = new Map<string, readonly string[]>();
  readonly #compactions = new Map<string, Promise<void>>();

  constructor(options: {
    maxNamesPerScope: number;
    fileMode: number;
    dirMode: number;
    durability: FsDurability;
  }) {
    this.#maxLogEntries = namesDirEntries(options);
    this.#files = { fileMode: options.fileMode, durability: options.durability };
    this.#dirMode = options.dirMode;
    this.#slotScan = new NameIndexes(this.#maxLogEntries, options.fileMode);
  }

  /**
   * Records a name about to be created: links its fsynced staging slot into the log and makes
   * the entry durable, before the slot itself is linked (so no slot exists without an entry).
   */
  async record(
    scopeDirs: ScopePaths,
    digest: string,
    name: string,
    stagedSlot: string,
  ): Promise<void> {
    const entry = join(scopeDirs.nameLog, logFile(digest, name));
    try {
      await link(stagedSlot, entry);
    } catch (error) {
      if (isTaken(error)) return;
      if (!isMissing(error)) throw error;
      // A scope laid out before the index had no log directory.
      await mkdir(scopeDirs.nameLog, { mode: this.#dirMode, recursive: true });
      await syncDirectory(scopeDirs.dir, this.#files);
      return this.record(scopeDirs, digest, name, stagedSlot);
    }
    await syncDirectory(scopeDirs.nameLog, this.#files);
  }

  /** After a new name: folds the log into a new index generation once it is long enough. */
  async afterCreate(scopeDirs: ScopePaths): Promise<void> {
    const entries = await scanStoreDirectory(scopeDirs.nameLog, this.#maxLogEntries);
    if (entries.length >= testOnlyNameOrder.compactAtLogEntries) await this.compact(scopeDirs);
  }

  /** Every name ever created in the scope at or after `start`, in UTF-8 order. */
  async *names(scopeDirs: ScopePaths, start: NameStart | undefined): AsyncGenerator<string> {
    let from = start;
    for (let attempt = 0; ; attempt++) {
      try {
        for await (const name of this.#merged(scopeDirs, from)) {
          yield name;
          from = { from: name, inclusive: false };
        }
        return;
      } catch (error) {
        // Damage is repaired by a rebuild from the slots, once; then the listing goes on.
        if (attempt > 0 || !isIndexDamage(error)) throw error;
        await this.rebuild(scopeDirs);
      }
    }
  }

  /** Folds the log into a new generation (single-flight per scope in this instance). */
  compact(scopeDirs: ScopePaths): Promise<void> {
    return this.#singleFlight(scopeDirs, async () => {
      const log = await this.#readLog(scopeDirs);
      const newest = await this.#newestGeneration(scopeDirs);
      if (newest === 0) return this.#rebuildNow(scopeDirs);
      let indexed: string[] | undefined;
      try {
        indexed = await this.#readAll(scopeDirs, newest);
      } catch (error) {
        if (!isIndexDamage(error)) throw error;
        return this.#rebuildNow(scopeDirs);
      }
      // Replaced and removed since it was found: a newer compaction has done the work.
      if (indexed === undefined) return;
      // Only names whose slot exists: an entry of a creation still in flight (or cut short
      // by a crash) stays in the log, so an index never holds more than the slots.
      const folded: LogEntry[] = [];
      for (const entry of log) {
        if (await pathExists(join(scopeDirs.names, `${entry.digest}.json`))) folded.push(entry);
      }
      const names = mergeSorted(
        indexed,
        folded.map((entry) => entry.name),
      );
      const files = folded.map((entry) => entry.file);
      await this.#link(scopeDirs, newest, names, files);
    });
  }

  /** Rebuilds the index from the name slots (damage, or a store of the previous layout). */
  rebuild(scopeDirs: ScopePaths): Promise<void> {
    return this.#singleFlight(scopeDirs, () => this.#rebuildNow(scopeDirs));
  }

  /** Forgets every cached reading (on close). */
  clear(): void {
    this.#slotScan.clear();
    this.#logs.clear();
    this.#headers.clear();
    this.#blocks.clear();
  }

  async #rebuildNow(scopeDirs: ScopePaths): Promise<void> {
    if (!(await pathExists(scopeDirs.names))) return;
    // A scope whose creation a power cut left short may lack any of these (its slot is not
    // linked yet, so nothing in it was published); the rebuild writes through staging/.
    for (const dir of [scopeDirs.staging, scopeDirs.nameIndex, scopeDirs.nameLog]) {
      await mkdir(dir, { mode: this.#dirMode, recursive: true });
    }
    // The generation to build on is found before the slots are read: every generation up to
    // it holds only names whose slots were linked before that, so the slots read next hold
    // them all. Found after, it could be one another rebuild or compaction linked meanwhile
    // from slots this one never read, and the generation linked here would drop its names
    // (their log entries gone with that link).
    const base = await this.#newestGeneration(scopeDirs);
    // The log is read before the slots: an entry removed below is one whose slot was seen.
    const logged = await scanStoreDirectory(scopeDirs.nameLog, this.#maxLogEntries);
    const names = await this.#slotScan.knownNames(scopeDirs);
    const seen = new Set(names.map((name) => sha256Hex(name)));
    // An entry whose slot was seen goes, as does anything that is not a sound log entry.
    const covered = logged.filter((file) => {
      const match = LOG_ENTRY_PATTERN.exec(file);
      const digest = match?.[1];
      if (digest === undefined || seen.has(digest)) return true;
      try {
        if (match?.[2] !== undefined) spelledName(digest, match[2]);
        return false;
      } catch {
        return true;
      }
    });
    await testOnlyNameOrder.beforeRebuildLinks?.();
    await this.#link(scopeDirs, base, names, covered);
  }

  /**
   * Links generation `base + 1` holding `names`; if it won and is still the newest, removes
   * the log files it folded in and every generation older than `base`.
   */
  async #link(
    scopeDirs: ScopePaths,
    base: number,
    names: readonly string[],
    foldedFiles: readonly string[],
  ): Promise<void> {
    const generation = base + 1;
    const temp = join(scopeDirs.staging, `${generation}-${sha256Hex(String(Math.random()))}.idx`);
    await createDurably(temp, encodeNameIndex(names), this.#files);
    try {
      await link(temp, join(scopeDirs.nameIndex, `${generation}.idx`));
    } catch (error) {
      if (isTaken(error)) return; // Another compaction built on `base` first.
      throw error;
    } finally {
      await removeQuietly(temp);
    }
    await syncDirectory(scopeDirs.nameIndex, this.#files);
    if ((await this.#newestGeneration(scopeDirs)) !== generation) return;
    for (const file of foldedFiles) await removeQuietly(join(scopeDirs.nameLog, file));
    for (const old of await this.#generations(scopeDirs)) {
      if (old < base) await removeQuietly(join(scopeDirs.nameIndex, `${old}.idx`));
    }
  }

  async *#merged(scopeDirs: ScopePaths, start: NameStart | undefined): AsyncGenerator<string> {
    if (!(await pathExists(scopeDirs.names))) return;
    // The log first, then the newest generation: see the comment at the top.
    const log = await this.#logs.read(scopeDirs.nameLog, () => this.#readLog(scopeDirs));
    if (log.length >= 4 * testOnlyNameOrder.compactAtLogEntries) await this.compact(scopeDirs);
    const logNames = log.map((entry) => entry.name);
    const fromLog = logNames.slice(startIndex(logNames, start));
    const newest = await this.#newestGeneration(scopeDirs);
    if (newest === 0) {
      await this.rebuild(scopeDirs);
      yield* this.#merged(scopeDirs, start);
      return;
    }
    const opened = await openNameIndex(join(scopeDirs.nameIndex, `${newest}.idx`));
    if (!opened) {
      // Replaced and removed since it was found: read the newer one.
      yield* this.#merged(scopeDirs, start);
      return;
    }
    try {
      const key = `${scopeDirs.nameIndex}/${newest}:${(await opened.handle.stat()).ino}`;
      yield* mergeDistinct(this.#indexed(key, opened, start), fromLog);
    } finally {
      await opened.handle.close();
    }
  }

  /** The names of an open index generation from `start`, reading only the blocks needed. */
  async *#indexed(
    key: string,
    { handle, size }: { handle: ReadOnlyFile; size: number },
    start: NameStart | undefined,
  ): AsyncGenerator<string> {
    let header = this.#headers.get(key);
    if (!header) {
      header = await readIndexHeader(handle, size);
      this.#headers.set(key, header);
    }
    const firsts = header.blocks.map((block) => block.first);
    // The first block read is the last one starting at or before `start`; every later block
    // starts after it.
    let block = Math.max(0, start ? indexAfter(firsts, start.from, same, compareUtf8) - 1 : 0);
    for (let first = true; block < header.blocks.length; block++, first = false) {
      const names = await this.#block(key, handle, header, block);
      for (let at = first ? startIndex(names, start) : 0; at < names.length; at++) {
        yield names[at] as string;
      }
    }
  }

  async #block(
    key: string,
    handle: ReadOnlyFile,
    header: IndexHeader,
    at: number,
  ): Promise<readonly string[]> {
    const blockKey = `${key}#${at}`;
    let names = this.#blocks.get(blockKey);
    if (!names) {
      names = await readIndexBlock(handle, header, at);
      this.#blocks.set(blockKey, names);
      // A bounded cache: the oldest block read goes first.
      if (this.#blocks.size > MAX_CACHED_BLOCKS) {
        this.#blocks.delete(this.#blocks.keys().next().value as string);
      }
    }
    return names;
  }

  /** Every name of a generation (for a compaction); undefined if it is gone. */
  async #readAll(scopeDirs: ScopePaths, generation: number): Promise<string[] | undefined> {
    const opened = await openNameIndex(join(scopeDirs.nameIndex, `${generation}.idx`));
    if (!opened) return undefined;
    try {
      const header = await readIndexHeader(opened.handle, opened.size);
      const names: string[] = [];
      for (let at = 0; at < header.blocks.length; at++) {
        for (const name of await readIndexBlock(opened.handle, header, at)) names.push(name);
      }
      return names;
    } finally {
      await opened.handle.close();
    }
  }

  /** The log's entries, sorted by name; a missing log (previous layout) is empty. */
  async #readLog(scopeDirs: ScopePaths): Promise<readonly LogEntry[]> {
    const entries: LogEntry[] = [];
    for (const file of await scanStoreDirectory(scopeDirs.nameLog, this.#maxLogEntries)) {
      const match = LOG_ENTRY_PATTERN.exec(file);
      const digest = match?.[1];
      if (digest === undefined) continue;
      const hex = match?.[2];
      const name =
        hex === undefined
          ? await readNameSlot(join(scopeDirs.nameLog, file), digest)
          : spelledName(digest, hex);
      if (name !== undefined) entries.push({ file, digest, name });
    }
    return Object.freeze(entries.sort((a, b) => compareUtf8(a.name, b.name)));
  }

  async #generations(scopeDirs: ScopePaths): Promise<number[]> {
    const numbers: number[] = [];
    for (const file of await scanStoreDirectory(scopeDirs.nameIndex, MAX_INDEX_DIR_ENTRIES)) {
      const match = GENERATION_PATTERN.exec(file);
      if (match) numbers.push(Number(match[1]));
    }
    return numbers;
  }

  /** The newest generation's number; 0 when there is none. */
  async #newestGeneration(scopeDirs: ScopePaths): Promise<number> {
    return Math.max(0, ...(await this.#generations(scopeDirs)));
  }

  #singleFlight(scopeDirs: ScopePaths, work: () => Promise<void>): Promise<void> {
    let pending = this.#compactions.get(scopeDirs.digest);
    if (!pending) {
      pending = work().finally(() => this.#compactions.delete(scopeDirs.digest));
      this.#compactions.set(scopeDirs.digest, pending);
    }
    return pending;
  }
}

/** Index blocks remembered per instance (about 5 KiB each for short names). */
const MAX_CACHED_BLOCKS = 4_096;

const same = (name: string) => name;

function startIndex(sorted: readonly string[], start: NameStart | undefined): number {
  if (!start) return 0;
  return start.inclusive
    ? indexFrom(sorted, start.from, same, compareUtf8)
    : indexAfter(sorted, start.from, same, compareUtf8);
}

function mergeSorted(a: readonly string[], b: readonly string[]): string[] {
  const merged: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const x = a[i];
    const y = b[j];
    const take = y === undefined || (x !== undefined && compareUtf8(x, y) <= 0) ? x : y;
    if (take === x) i++;
    if (take === y) j++;
    if (merged[merged.length - 1] !== take) merged.push(take as string);
  }
  return merged;
}

/** Two ascending sources merged into one, each name once. */
async function* mergeDistinct(
  indexed: AsyncIterable<string>,
  logged: readonly string[],
): AsyncGenerator<string> {
  let next = 0;
  let previous: string | undefined;
  const fresh = (name: string) => {
    const isNew = name !== previous;
    previous = name;
    return isNew;
  };
  for await (const name of indexed) {
    for (; next < logged.length && compareUtf8(logged[next] as string, name) < 0; next++) {
      if (fresh(logged[next] as string)) yield logged[next] as string;
    }
    if (fresh(name)) yield name;
  }
  for (; next < logged.length; next++) {
    if (fresh(logged[next] as string)) yield logged[next] as string;
  }
}
