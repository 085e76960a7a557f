import { randomUUID } from "node:crypto";
import { lstat, rename } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import {
  createDurably,
  readExactly,
  releaseInBackground,
  removeQuietly,
  type WriteSettings,
} from "./io.js";
import { KEYS_DIR, keyFile, MAX_BINDING_GENERATIONS, STAGING_DIR, versionFile } from "./layout.js";
import { openChecked } from "./records.js";
import { openSealedRecord } from "./sealed-record.js";
import { FIRST_READ_BYTES, MAX_METADATA_FILE_BYTES, readVersionHead } from "./version-file.js";

// A deleted version's bytes go once its tombstone is durable. The version file has up to
// three names (the reservation, the tombstone, a key's binding): each is replaced by a file
// of its own, rather than the version file truncated, so that a read that opened the version
// before the delete keeps reading it whole.

/** What replacing a deleted version file's names needs to know of it. */
interface DeletedVersionFile {
  readonly ino: number;
  readonly mode: number;
  /** Its header and record, which a key's binding keeps. */
  readonly head: Buffer;
  readonly key: string | undefined;
}

/**
 * Lets go of a deleted version's bytes when it is a version file: its reservation and
 * tombstone become empty files, a key's binding its head alone (a retry with the key still
 * reads its record; written durably, as a binding must never read torn). The names are looked
 * for under both the tombstone and the reservation, as a power cut may keep the replacement
 * of one and not the other. True when it let go of anything.
 */
export async function releaseVersionFile(
  dir: string,
  version: number,
  settings: Pick<WriteSettings, "durability">,
): Promise<boolean> {
  const found =
    (await readDeletedVersionFile(versionFile(dir, version, "t"), version)) ??
    (await readDeletedVersionFile(versionFile(dir, version, "r"), version));
  if (!found) return false;
  const scopeDir = dirname(dirname(dir));
  const staging = join(scopeDir, STAGING_DIR);
  let released = false;
  /** Replaces `path` if it names the version file; false when there is no `path`. */
  const replace = async (path: string, bytes: Uint8Array): Promise<boolean> => {
    const stats = await lstat(path).catch(() => undefined);
    if (stats?.ino !== found.ino) return stats !== undefined;
    released = true;
    const stage = join(staging, `${randomUUID()}.x`);
    // Only bytes need syncing before the rename: an empty file has none to lose.
    const durability = bytes.byteLength > 0 ? settings.durability : "process";
    await createDurably(stage, bytes, { durability, fileMode: found.mode });
    await rename(stage, path).catch(async (error: unknown) => {
      await removeQuietly(stage);
      throw error;
    });
    return true;
  };
  const key = found.key;
  if (key !== undefined) {
    // The key's binding is one of its generations (keys.ts): the one that is this file.
    const keys = { keys: join(scopeDir, KEYS_DIR) };
    for (let generation = 0; generation < MAX_BINDING_GENERATIONS; generation++) {
      if (!(await replace(keyFile(keys, basename(dir), key, generation), found.head))) break;
    }
  }
  const empty = new Uint8Array(0);
  await replace(versionFile(dir, version, "r"), empty);
  await replace(versionFile(dir, version, "t"), empty);
  return released;
}

/** The version file at `path`, if it is one (not emptied, not of the format before). */
async function readDeletedVersionFile(
  path: string,
  version: number,
): Promise<DeletedVersionFile | undefined> {
  const what = "a deleted version's file";
  const opened = await openChecked(path, what, { version });
  if (!opened) return undefined;
  const { handle, size } = opened;
  try {
    const first = await readExactly(handle, Math.min(size, FIRST_READ_BYTES));
    if (!first || first.byteLength === 0) return undefined;
    const parsed = await readVersionHead(handle, first, size, MAX_METADATA_FILE_BYTES, what, {
      version,
    });
    if (parsed.format !== 2) return undefined;
    const record = openSealedRecord(parsed.record, what, { version });
    const head =
      parsed.payloadOffset <= first.byteLength
        ? first.subarray(0, parsed.payloadOffset)
        : await readExactly(handle, parsed.payloadOffset);
    if (!head) return undefined;
    const stats = await handle.stat();
    return {
      ino: stats.ino,
      mode: stats.mode & 0o777,
      head,
      key: typeof record.idempotencyKey === "string" ? record.idempotencyKey : undefined,
    };
  } finally {
    releaseInBackground(handle);
  }
}
