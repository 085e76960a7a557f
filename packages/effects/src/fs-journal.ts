import { randomUUID } from "node:crypto";
import {
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
  writeFile,
} from "node:fs/promises";
import { join } from "node:path";
import { asArtifactError, corruptArtifact, invalidArgument } from "@artifact-kit/core";
import { JournalBase, type Stored } from "./journal-base.js";
import type { EffectRecord } from "./types.js";

export interface FsJournalOptions {
  /** The journal's directory; created if absent. Several processes may share it. */
  root: string;
  clock?: () => number;
}

const REVISION_DIGITS = 10;
/** A staged file younger than this may be a live write about to be linked: never swept. */
const STAGING_GRACE_MS = 60_000;
const REVISION_FILE = /^(\d{10})\.json$/;

function errorCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error
    ? String((error as { code: unknown }).code)
    : undefined;
}

async function syncDirectory(path: string): Promise<void> {
  const handle = await open(path, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function syncFile(path: string): Promise<void> {
  const handle = await open(path, "r+");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** A revision a power loss tore: published by link but not yet synced when the power went. */
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
 * Revisions are never removed one by one, only with the whole effect by prune, so a stale
 * writer can never land on a freed number.
 */
export class FsEffectJournal extends JournalBase {
  protected readonly durability = "durable" as const;
  readonly #effects: string;
  readonly #staging: string;
  readonly #trash: string;
  readonly #ready: Promise<void>;

  constructor(options: FsJournalOptions) {
    const { root, clock } = options ?? {};
    if (typeof root !== "string" || root.length === 0) {
      throw invalidArgument("root", "must be a directory path");
    }
    super(clock);
    this.#effects = join(root, "effects");
    this.#staging = join(root, "tmp");
    this.#trash = join(root, "trash");
    this.#ready = Promise.all(
      [this.#effects, this.#staging, this.#trash].map((dir) => mkdir(dir, { recursive: true })),
    ).then(() => syncDirectory(root));
    this.#ready.catch(() => {}); // reported by the first call instead
  }

  async #io<T>(operation: string, run: () => Promise<T>): Promise<T> {
    try {
      await this.#ready;
      return await run();
    } catch (error) {
      throw asArtifactError(error, `effect journal ${operation}`);
    }
  }

  #revisionPath(effectId: string, revision: number): string {
    return join(this.#effects, effectId, `${String(revision).padStart(REVISION_DIGITS, "0")}.json`);
  }

  /**
   * Stages the record, then links it under `revision`; false if that is taken. A durable
   * change then syncs the linked file, its directory and `alsoSync` together.
   */
  async #publish(
    record: EffectRecord,
    revision: number,
    durable: boolean,
    alsoSync: readonly string[] = [],
  ): Promise<boolean> {
    const staged = join(this.#staging, `${randomUUID()}.json`);
    const target = this.#revisionPath(record.effectId, revision);
    await writeFile(staged, JSON.stringify(record), { flag: "wx" });
    try {
      await link(staged, target);
    } catch (error) {
      if (errorCode(error) === "EEXIST") return false;
      throw error;
    } finally {
      await unlink(staged);
    }
    if (durable) {
      const directory = join(this.#effects, record.effectId);
      await Promise.all([syncFile(target), ...[directory, ...alsoSync].map(syncDirectory)]);
    }
    return true;
  }

  protected create(record: EffectRecord): Promise<boolean> {
    return this.#io("intend", async () => {
      try {
        await mkdir(join(this.#effects, record.effectId));
      } catch (error) {
        if (errorCode(error) === "EEXIST") return false;
        throw error;
      }
      // The new effect directory's entry is synced in the same round as the record.
      return this.#publish(record, 1, true, [this.#effects]);
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

  /** Moves the effect out of sight in one rename, then deletes it at leisure. */
  protected remove(effectId: string): Promise<void> {
    return this.#io("prune", async () => {
      const doomed = join(this.#trash, `${effectId}.${randomUUID()}`);
      await rename(join(this.#effects, effectId), doomed);
      await syncDirectory(this.#effects);
      await rm(doomed, { recursive: true, force: true });
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

  protected async release(): Promise<void> {}
}
