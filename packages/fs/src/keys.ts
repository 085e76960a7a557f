import { link, mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import {
  type ArtifactMeta,
  corruptArtifact,
  type Deadline,
  isArtifactError,
} from "@artifact-kit/core";
import {
  allSettledOrFirstFailure,
  type IdempotentPayload,
  idempotentVersionDeleted,
  replayIdempotentPut,
} from "@artifact-kit/core/adapter";
import { isTornBinding, isWholeBoundVersion, makeBindingDurable } from "./bound-version.js";
import type { FsConfig } from "./config.js";
import { isTaken, pathExists, removeIfPresent, syncDirectory, type WriteSettings } from "./io.js";
import { versionFile } from "./layout.js";
import { decodeMeta, isDeleted, type VersionAddress } from "./version-files.js";
import { readMeta, readRecordFile } from "./version-reads.js";

// Idempotency keys. A keyed put writes its version file at <v>.r (version-file.ts), binds the
// key by linking it to keys/<nd>/<kd>.json, and then makes the file, the reservation's entry
// and the binding's durable in one round of syncs: link() is exclusive and atomic, so one put
// per key wins, across processes, and the binding is never partial. The binding is the keyed
// put's commit point. Publishing is then one more link, of the binding itself to <v>.m.
// A retry that finds a binding whose <v>.m is missing (the binder crashed or is still on its
// way) checks that it holds its version whole and makes it durable (bound-version.ts), then
// finishes it with that same link (in a store written before version files: a binding holding
// the record alone, and only while its payload <v>.d is there). Only a retry does: repair and
// reads never publish a put no caller was told of, which a reconciler may have judged not done
// (effects). A delete cut short leaves the same files, plus the tombstone <v>.t it decided
// by: a version with one is deleted, and is never finished (version-files.ts).
//
// A power cut in a binder's round of syncs can keep the binding and lose the file's bytes or
// its reservation's entry: a torn binding, of a put never acknowledged. The key then binds
// anew at the next generation, <kd>.<g>.json, and the torn one stays, so that every process
// walks the same generations to the same binding.

/** A binding a power cut left torn: the key binds anew at the next generation. */
export const TORN = "torn";

/** What a binding holds: its version's record, and whether it is that version's file. */
export interface Bound {
  readonly meta: ArtifactMeta;
  readonly versionFile: boolean;
}

/** A keyed put's request, as far as a replay compares it. */
export interface KeyedPut {
  readonly key: string;
  readonly payload: IdempotentPayload;
}

/** What linking a binding to a version's metadata found. */
type FinishOutcome = "published" | "deleted";

/**
 * Publishes the version a binding names, by linking the binding to `<v>.m`, unless it is
 * already published or deleted. Every caller has just written or seen the payload without
 * a tombstone, so both are looked at only after the link (`carriesPayload`: the caller knows
 * the binding is a version file, which holds its payload until a tombstone is durable): a delete running at the
 * same time renames `<v>.m` to `<v>.t` first, and a link that lands after that finds the
 * tombstone (or, in a store written before tombstones, the data gone) and takes itself back,
 * so a deleted version never comes back. Reads and listings skip metadata beside a tombstone
 * meanwhile, and repair removes it should this put crash before taking it back.
 */
export async function finishBinding(
  binding: string,
  at: Pick<VersionAddress, "dir" | "version">,
  settings: Pick<WriteSettings, "durability">,
  carriesPayload = false,
): Promise<FinishOutcome> {
  const meta = versionFile(at.dir, at.version, "m");
  let linked = true;
  try {
    await link(binding, meta);
  } catch (error) {
    if (!isTaken(error)) throw error;
    linked = false;
  }
  // The tombstone is looked for after the link, while the link is made durable.
  const [, deleted] = await allSettledOrFirstFailure<unknown>([
    linked ? syncDirectory(at.dir, settings) : Promise.resolve(),
    isDeleted(at.dir, at.version),
  ]);
  const gone =
    deleted === true || (linked && !carriesPayload && !(await payloadPresent(binding, at)));
  if (!gone) return "published";
  await removeIfPresent(meta);
  return "deleted";
}

/**
 * Whether a bound version's payload is there to publish: a version file carries it (a
 * delete lets go of it only after its tombstone); before version files it was `<v>.d`.
 */
async function payloadPresent(
  binding: string,
  at: Pick<VersionAddress, "dir" | "version">,
): Promise<boolean> {
  const read = await readRecordFile(binding, "the idempotency key binding", {
    kind: "idempotencyKey",
  });
  return read?.versionFile === true || (await pathExists(versionFile(at.dir, at.version, "d")));
}

/**
 * The idempotency key bindings of a store: looking one up, creating one, and answering a put
 * whose key is already bound.
 */
export class KeyBindings {
  readonly #config: FsConfig;
  /** Key directories this instance has created (or found) and made durable. */
  readonly #prepared = new Set<string>();

  constructor(config: FsConfig) {
    this.#config = config;
  }

  /**
   * What the binding at `binding` holds, checked to be this key's; undefined when there is
   * none, TORN when it cannot be read and is no published version's file.
   */
  async read(
    binding: string,
    at: Omit<VersionAddress, "version">,
    key: string,
  ): Promise<Bound | typeof TORN | undefined> {
    let read: Awaited<ReturnType<typeof readRecordFile>>;
    let meta: ArtifactMeta;
    try {
      read = await readRecordFile(binding, "the idempotency key binding", {
        kind: "idempotencyKey",
      });
      if (read === undefined) return undefined;
      meta = decodeMeta(read.record, at, "the idempotency key binding");
    } catch (error) {
      if (isArtifactError(error, "corrupt_artifact") && (await isTornBinding(binding))) {
        return TORN;
      }
      throw error;
    }
    if (meta.idempotencyKey !== key) {
      throw corruptArtifact("the idempotency key binding names another key", {
        version: meta.version,
      });
    }
    return { meta, versionFile: read.versionFile };
  }

  /**
   * Binds the key to the version whose version file is `record` (complete, not yet durable:
   * the caller syncs it with the binding's directory); false when another put has bound it
   * first.
   */
  async bind(record: string, binding: string): Promise<boolean> {
    await this.#prepare(dirname(binding));
    try {
      await link(record, binding);
    } catch (error) {
      if (isTaken(error)) return false;
      throw error;
    }
    return true;
  }

  /**
   * The answer to a put whose key is bound to `bound`: not_found when the version has been
   * deleted, whatever the payload; else the version's record when the payload is the same
   * (finishing its publication if its binder did not), invalid_argument when it differs;
   * TORN when the binding holds no whole version (a power cut tore it). Writes nothing but
   * that finishing.
   */
  async replay(
    binding: string,
    bound: Bound,
    at: VersionAddress,
    put: KeyedPut,
    deadline: Deadline,
  ): Promise<ArtifactMeta | typeof TORN> {
    // The tombstone first: a delete renaming the metadata to it between the two looks
    // makes this a replay that happened before the delete.
    if (await isDeleted(at.dir, at.version)) idempotentVersionDeleted(at.version);
    const published = await readMeta(at);
    if (published) {
      // Another put's: this binding's reservation was lost to a power cut, and its number
      // taken again.
      if (published.idempotencyKey !== put.key) return TORN;
      return replayIdempotentPut(published, put.payload);
    }
    deadline.check();
    if (bound.versionFile) {
      if (!(await isWholeBoundVersion(binding, at, bound.meta))) {
        // Its binder may have published it meanwhile, and a delete let go of its bytes.
        if (await isDeleted(at.dir, at.version)) idempotentVersionDeleted(at.version);
        return TORN;
      }
      replayIdempotentPut(bound.meta, put.payload);
      await makeBindingDurable(binding, at, this.#config);
    } else {
      // Unpublished without its payload: deleted before tombstones were written (or never
      // finished, and then given up).
      if (!(await payloadPresent(binding, at))) idempotentVersionDeleted(at.version);
      replayIdempotentPut(bound.meta, put.payload);
    }
    if ((await finishBinding(binding, at, this.#config, bound.versionFile)) === "deleted")
      idempotentVersionDeleted(at.version);
    return bound.meta;
  }

  /** Creates keys/<nd>/ once per instance, with fsyncs that make both levels durable. */
  async #prepare(dir: string): Promise<void> {
    if (this.#prepared.has(dir)) return;
    await mkdir(dir, { mode: this.#config.dirMode, recursive: true });
    await syncDirectory(dirname(dirname(dir)), this.#config);
    await syncDirectory(dirname(dir), this.#config);
    this.#prepared.add(dir);
  }
}
