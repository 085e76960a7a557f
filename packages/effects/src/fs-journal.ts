import { randomUUID } from "node:crypto";
import {
  type FileHandle,
  link,
  lstat,
  mkdir,
  open,
  opendir,
  readdir,
  readFile,
  rename,
  rm,
  unlink,
} from "node:fs/promises";
import { dirname, join } from "node:path";
import { asArtifactError, corruptArtifact, invalidArgument } from "@artifact-kit/core";
import { allSettledOrFirstFailure } from "@artifact-kit/core/adapter";
import { JournalBase, type Stored } from "./journal-base.js";
import { type Spare, SpareInodes } from "./spare-inodes.js";
import type { EffectRecord } from "./types.js";

export interface FsJournalOptions {
  /** The journal's directory; created if absent. Several processes may share it. */
  root: string;
  clock?: () => number;
}

const REVISION_DIGITS = 10;
/** A staged file younger than this may be a live write about to be linked: never swept. */
const STAGING_GRACE_MS = 60_000;
/** A spare staged file is made anew past this age, well before a sweep may take it. */
const SPARE_MAX_AGE_MS = STAGING_GRACE_MS / 2;
const revisionFile = (revision: number) =>
  `${String(revision).padStart(REVISION_DIGITS, "0")}.json`;

/** An empty file in tmp/, open for writing, for a change's next revision. */
interface StagedFile extends Spare {
  readonly path: string;
  readonly handle: FileHandle;
}

/** A directory in tmp/ holding an empty first revision (`path`, open): a new effect. */
interface StagedEffect extends StagedFile {
  readonly dir: string;
  readonly dirHandle: FileHandle;
}
const REVISION_FILE = /^(\d{10})\.json$/;

function errorCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error
    ? String((error as { code: unknown }).code)
    : undefined;
}

/**
 * Closes a handle whose writes are done (and synced where they must be) without waiting: a
 * close loses nothing then, and waiting would cost a thread-pool round trip on the caller's path.
 */
function closeInBackground(handle: FileHandle): void {
  handle.close().catch(() => {});
}

async function syncDirectory(path: string): Promise<void> {
  const handle = await open(path, "r");
  try {
    await handle.sync();
  } finally {
    closeInBackground(handle);
  }
}

/** Renames directory `from` to `to`; false when `to` is a directory that is not empty. */
async function renameUnlessTaken(from: string, to: string): Promise<boolean> {
  try {
    await rename(from, to);
    return true;
  } catch (error) {
    const code = errorCode(error);
    if (code === "ENOTEMPTY" || code === "EEXIST") return false;
    throw error;
  }
}

/** Links `from` as `to`; false when `to` exists (link(2) never replaces a name). */
async function linkUnlessTaken(from: string, to: string): Promise<boolean> {
  try {
    await link(from, to);
    return true;
  } catch (error) {
    if (errorCode(error) === "EEXIST") return false;
    throw error;
  }
}

/**
 * A revision that is not whole: published but not yet synced when the power went, or a first
 * revision its intend is still writing (see `create`).
 */
class TornRevision extends Error {}

function parseRevision(effectId: string, revision: number, text: string): EffectRecord {
  let record: EffectRecord;
  try {
    record = JSON.parse(text) as EffectRecord;
  } catch {
    throw new TornRevision(`effect ${effectId} revision ${revision} is not JSON`);
  }
  if (record?.effectId !== effectId) {
    throw corruptArtifact(`effect ${effectId} revision ${revision} names another effect`, {
      effectId,
    });
  }
  return record;
}

/**
 * A journal durable on one host: one directory per effect holding its numbered revisions.
 * A change is staged in tmp/ (written whole), then published by link(2) under the next
 * revision number: link refuses an existing name, so it is an atomic compare-and-swap that
 * several processes can race on, and a reader never sees a partial record (the highest
 * revision is the state). A change that must survive a power loss is synced after its link,
 * file and directory at once, before the call returns: one round of syncs per durable
 * change. A power loss before that round ends can leave the newest revision torn (not
 * JSON); that change was never acknowledged, so a reader falls back to the revision below it.
 * The first revision alone is written in place (see `create`). Revisions are never removed
 * one by one, only with the whole effect by prune, so a stale writer can never land on a
 * freed number. The inodes a change needs (a staged file; for an intent, a directory holding
 * its first revision) are made ahead, once the change before has made its syncs: while the
 * caller's service call or its next change runs (spare-inodes.ts).
 */
export class FsEffectJournal extends JournalBase {
  protected readonly durability = "durable" as const;
  readonly #effects: string;
  readonly #staging: string;
  readonly #trash: string;
  /** effects/, held open: every intend syncs it, and an open costs as much as the sync. */
  readonly #effectsHandle: Promise<FileHandle>;
  readonly #unlinking = new Set<Promise<void>>();
  readonly #stagedFiles = new SpareInodes(() => this.#stageFile(), SPARE_MAX_AGE_MS);
  readonly #stagedEffects = new SpareInodes(() => this.#stageEffect(), SPARE_MAX_AGE_MS);

  constructor(options: FsJournalOptions) {
    const { root, clock } = options ?? {};
    if (typeof root !== "string" || root.length === 0) {
      throw invalidArgument("root", "must be a directory path");
    }
    super(clock);
    this.#effects = join(root, "effects");
    this.#staging = join(root, "tmp");
    this.#trash = join(root, "trash");
    this.#effectsHandle = Promise.all(
      [this.#effects, this.#staging, this.#trash].map((dir) => mkdir(dir, { recursive: true })),
    )
      .then(() => syncDirectory(root))
      .then(() => open(this.#effects, "r"));
    this.#effectsHandle.catch(() => {}); // reported by the first call instead
  }

  async #io<T>(operation: string, run: () => Promise<T>): Promise<T> {
    try {
      await this.#effectsHandle;
      return await run();
    } catch (error) {
      throw asArtifactError(error, `effect journal ${operation}`);
    }
  }

  #revisionPath(effectId: string, revision: number): string {
    return join(this.#effects, effectId, revisionFile(revision));
  }

  /**
   * Writes the record into a staged file, then links it under `revision`; false if that is
   * taken. A durable change then syncs the linked file (through the staged handle: the same
   * inode) and its directory together, while the staged name goes.
   */
  async #publish(record: EffectRecord, revision: number, durable: boolean): Promise<boolean> {
    const staged = await this.#stagedFiles.take();
    const target = this.#revisionPath(record.effectId, revision);
    try {
      await staged.handle.writeFile(JSON.stringify(record));
      const linked = await linkUnlessTaken(staged.path, target);
      if (linked && durable) {
        await Promise.all([staged.handle.sync(), syncDirectory(dirname(target))]);
      }
      return linked;
    } finally {
      closeInBackground(staged.handle);
      this.#unlinkInBackground(staged.path);
      this.#stagedFiles.refill();
    }
  }

  /**
   * Unlinks a staged name off the caller's path: once linked (or lost to another writer)
   * nothing reads it, and one a crash leaves behind is swept by prune. Close waits for these.
   */
  #unlinkInBackground(path: string): void {
    const removal: Promise<void> = unlink(path)
      .catch(() => {})
      .finally(() => this.#unlinking.delete(removal));
    this.#unlinking.add(removal);
  }

  /**
   * The intent is published by renaming a staged directory, which already holds an empty
   * first revision, to the effect's name: rename refuses a directory that is not empty, so
   * one intend per effect id wins, and the record is written into that first revision at
   * the same time. To a reader, a first revision still empty or half written is torn, so the
   * effect is absent, exactly as after a power loss; nothing but reconcilers reads an effect
   * before its intend returns. The record, the directory (its entry for the first revision) and its
   * entry in effects/ are synced in one round.
   */
  protected create(record: EffectRecord): Promise<boolean> {
    return this.#io("intend", async () => {
      const staged = await this.#stagedEffects.take();
      const directory = join(this.#effects, record.effectId);
      let placed = false;
      try {
        // The record goes into the first revision while the directory is renamed: the file
        // is the same whatever its directory is called, and one wait on the file system less.
        const [renamed] = await allSettledOrFirstFailure([
          renameUnlessTaken(staged.dir, directory),
          staged.handle.writeFile(JSON.stringify(record)).then(() => true),
        ]);
        placed = renamed === true;
        if (!placed) return false;
        await Promise.all([staged.handle.sync(), staged.dirHandle.sync(), this.#syncEffects()]);
        return true;
      } finally {
        closeInBackground(staged.handle);
        closeInBackground(staged.dirHandle);
        this.#stagedEffects.refill();
        if (!placed) await rm(staged.dir, { recursive: true, force: true });
      }
    });
  }

  protected read(effectId: string): Promise<Stored | undefined> {
    return this.#io("read", async () => {
      let names: string[];
      try {
        names = await readdir(join(this.#effects, effectId));
      } catch (error) {
        if (errorCode(error) === "ENOENT") return undefined;
        throw error;
      }
      const revisions = names
        .map((name) => REVISION_FILE.exec(name)?.[1])
        .filter((digits): digits is string => digits !== undefined)
        .map(Number)
        .sort((a, b) => b - a);
      const newest = revisions[0];
      // An effect directory with no revision is an intend that died before publishing.
      if (newest === undefined) return undefined;
      for (const revision of revisions) {
        let text: string;
        try {
          text = await readFile(this.#revisionPath(effectId, revision), "utf8");
        } catch (error) {
          // Pruned by another process between the listing and the read.
          if (errorCode(error) === "ENOENT") return undefined;
          throw error;
        }
        try {
          // The state is the newest whole revision; the next change goes above the newest.
          return { record: parseRevision(effectId, revision, text), revision: newest };
        } catch (error) {
          if (!(error instanceof TornRevision)) throw error;
          if (revision !== newest) {
            throw corruptArtifact(error.message, { effectId });
          }
        }
      }
      // Only a torn first revision: an intend the power cut before it returned.
      return undefined;
    });
  }

  protected swap(
    _effectId: string,
    revision: number,
    next: EffectRecord,
    mustSurvivePowerLoss: boolean,
  ): Promise<boolean> {
    return this.#io("write", () => this.#publish(next, revision + 1, mustSurvivePowerLoss));
  }

  protected async *ids(): AsyncIterable<string> {
    await this.#io("scan", async () => undefined);
    let dir: Awaited<ReturnType<typeof opendir>>;
    try {
      dir = await opendir(this.#effects);
    } catch (error) {
      throw asArtifactError(error, "effect journal scan");
    }
    for await (const entry of dir) {
      if (entry.isDirectory()) yield entry.name;
    }
  }

  /**
   * Moves the effect out of sight in one rename, then deletes it at leisure. Of processes
   * pruning one effect at once, one rename wins; the others find it gone.
   */
  protected remove(effectId: string): Promise<boolean> {
    return this.#io("prune", async () => {
      const doomed = join(this.#trash, `${effectId}.${randomUUID()}`);
      try {
        await rename(join(this.#effects, effectId), doomed);
      } catch (error) {
        if (errorCode(error) === "ENOENT") return false;
        throw error;
      }
      await syncDirectory(this.#effects);
      await rm(doomed, { recursive: true, force: true });
      return true;
    });
  }

  /** Staged files and trashed effects a killed process left behind, oldest first found. */
  protected sweep(olderThan: number, limit: number): Promise<void> {
    const before = Math.min(olderThan, Date.now() - STAGING_GRACE_MS);
    return this.#io("prune", async () => {
      let removed = 0;
      for (const dir of [this.#staging, this.#trash]) {
        for await (const entry of await opendir(dir)) {
          if (removed >= limit) return;
          const path = join(dir, entry.name);
          try {
            if ((await lstat(path)).mtimeMs >= before) continue;
          } catch (error) {
            if (errorCode(error) === "ENOENT") continue; // another process swept it
            throw error;
          }
          await rm(path, { recursive: true, force: true });
          removed++;
        }
      }
    });
  }

  async #stageFile(): Promise<StagedFile> {
    const path = join(this.#staging, `${randomUUID()}.json`);
    const handle = await open(path, "wx");
    const discard = async () => {
      await Promise.all([handle.close(), unlink(path)]);
    };
    return { path, handle, madeAt: Date.now(), discard };
  }

  async #stageEffect(): Promise<StagedEffect> {
    const dir = join(this.#staging, randomUUID());
    await mkdir(dir);
    const path = join(dir, revisionFile(1));
    const handles: FileHandle[] = [];
    const discard = async () => {
      await Promise.all(handles.map((handle) => handle.close()));
      await rm(dir, { recursive: true, force: true });
    };
    try {
      // The directory is held open too: the intend syncs it after renaming it into place.
      handles.push(await open(path, "wx"), await open(dir, "r"));
    } catch (error) {
      await discard();
      throw error;
    }
    const [handle, dirHandle] = handles as [FileHandle, FileHandle];
    return { dir, dirHandle, path, handle, madeAt: Date.now(), discard };
  }

  async #syncEffects(): Promise<void> {
    await (await this.#effectsHandle).sync();
  }

  protected async release(): Promise<void> {
    await Promise.all([
      ...this.#unlinking,
      this.#stagedFiles.discard(),
      this.#stagedEffects.discard(),
    ]);
    await (await this.#effectsHandle.catch(() => undefined))?.close();
  }
}
