import { randomUUID } from "node:crypto";
import { lstat, rename, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { type ArtifactMeta, checkMetaReply, corruptArtifact, type Scope } from "@artifact-kit/core";
import { compareNumbers } from "@artifact-kit/core/adapter";
import {
  isMissing,
  pathExists,
  readExactly,
  releaseInBackground,
  removeIfPossible,
  removeIfPresent,
  removeQuietly,
  syncDirectory,
  type WriteSettings,
} from "./io.js";
import { KEYS_DIR, keyFile, STAGING_DIR, VERSION_FILE_PATTERN, versionFile } from "./layout.js";
import { openChecked, scanStoreDirectory } from "./records.js";
import { openSealedRecord } from "./sealed-record.js";
import { FIRST_READ_BYTES, readVersionHead } from "./version-file.js";

// The files of one version in its name directory: `<v>.r` (reservation, written whole as the
// version file, version-file.ts), `<v>.m` (the publication point: a link of the version file)
// and `<v>.t` (tombstone: the metadata a delete moved aside). Stores written before the
// version file have the record alone in `<v>.m`, the payload in `<v>.d` and the block
// digests of a version of more than one block in `<v>.r`. A version is live while its `<v>.m` exists and its
// `<v>.t` does not: the tombstone is what a delete decides by, so a crash, a retry with its
// idempotency key or repair can tell a deleted version from one whose publication was cut
// short (both leave data without metadata). Reads check every file against the others;
// every mismatch is corrupt_artifact, never a fallback.

/**
 * Largest metadata file a get will read. The largest valid record (a 1,024-byte name, three
 * 256-byte scope ids and a 255-byte MIME type, all of control characters that JSON escapes
 * six-fold, plus 16 KiB of user metadata) is under 29 KiB.
 */
export const MAX_METADATA_FILE_BYTES = 65_536;

/** Where one version of one artifact lives. */
export interface VersionAddress {
  readonly scope: Scope;
  readonly name: string;
  /** The name's directory. */
  readonly dir: string;
  readonly version: number;
}

/** Published versions of a name (metadata present, no tombstone), ascending. */
export async function liveVersions(dir: string, maxScanEntries: number): Promise<number[]> {
  const published = new Set<number>();
  const deleted = new Set<number>();
  for (const entry of await scanStoreDirectory(dir, maxScanEntries)) {
    const match = VERSION_FILE_PATTERN.exec(entry);
    if (match?.[2] === "m") published.add(Number(match[1]));
    if (match?.[2] === "t") deleted.add(Number(match[1]));
  }
  return [...published].filter((version) => !deleted.has(version)).sort(compareNumbers);
}

/** True when a delete has decided the version's fate: it is deleted for good. */
export function isDeleted(dir: string, version: number): Promise<boolean> {
  return pathExists(versionFile(dir, version, "t"));
}

/** True while a version is published: its metadata is there and no tombstone. */
export async function isLive(dir: string, version: number): Promise<boolean> {
  return (await pathExists(versionFile(dir, version, "m"))) && !(await isDeleted(dir, version));
}

/**
 * Unpublishes a version by renaming its metadata to its tombstone, the delete's one deciding
 * step (atomic, and the directory's entry count stays three a version); false when it was
 * not published. The caller makes the directory durable, then calls dropDeleted: a power cut
 * may keep a later unlink and lose an earlier unsynced rename, and the payload must not go
 * before the version is durably unpublished (found by the power-loss trials).
 */
export async function entomb(dir: string, version: number): Promise<boolean> {
  const meta = versionFile(dir, version, "m");
  if (await isDeleted(dir, version)) {
    // Deleted before: a metadata file here is a late link of a put finishing the version's
    // idempotency key binding (keys.ts), which that put takes back itself unless it crashed.
    await removeIfPresent(meta);
    return false;
  }
  try {
    await rename(meta, versionFile(dir, version, "t"));
    return true;
  } catch (error) {
    if (isMissing(error)) return false;
    throw error;
  }
}

/**
 * Removes a deleted version's payload, then its metadata if a put finishing its key binding
 * linked it back since the rename (see keys.ts). Only after entomb() and a directory fsync.
 */
export async function dropDeleted(dir: string, version: number): Promise<void> {
  await removeIfPossible(versionFile(dir, version, "d"));
  await removeIfPresent(versionFile(dir, version, "m"));
  // The delete is decided and durable: letting go of the bytes is best effort, and repair
  // tries again (a damaged tombstone stays as it is).
  await releaseVersionFile(dir, version).catch(() => false);
}

/**
 * Lets go of a deleted version's bytes when it is a version file (format 2): each of its
 * names (the reservation, the tombstone and a key's binding) is replaced by a file of its own,
 * empty or, for the binding, the head alone (a retry with the key still reads its record).
 * Replaced rather than truncated: a read that opened the version before the delete keeps
 * reading it whole. Not synced: after a power cut repair lets go again. True when it let go
 * of anything.
 */
export async function releaseVersionFile(dir: string, version: number): Promise<boolean> {
  const tombstone = versionFile(dir, version, "t");
  const opened = await openChecked(tombstone, "the tombstone", { version });
  if (!opened) return false;
  const { handle, size } = opened;
  let head: Buffer | undefined;
  let key: string | undefined;
  let mode = 0o600;
  try {
    const first = await readExactly(handle, Math.min(size, FIRST_READ_BYTES));
    if (!first || first.byteLength === 0) return false;
    const parsed = await readVersionHead(
      handle,
      first,
      size,
      MAX_METADATA_FILE_BYTES,
      "the tombstone",
      { version },
    );
    if (parsed.format !== 2) return false;
    const record = openSealedRecord(parsed.record, "the tombstone", { version });
    key = typeof record.idempotencyKey === "string" ? record.idempotencyKey : undefined;
    head =
      parsed.payloadOffset <= first.byteLength
        ? first.subarray(0, parsed.payloadOffset)
        : await readExactly(handle, parsed.payloadOffset);
    if (!head) return false;
    mode = (await handle.stat()).mode & 0o777;
  } finally {
    releaseInBackground(handle);
  }
  const ino = (await lstat(tombstone)).ino;
  const staging = join(dirname(dirname(dir)), STAGING_DIR);
  let released = false;
  const replace = async (path: string, bytes: Uint8Array) => {
    const stats = await lstat(path).catch(() => undefined);
    if (stats?.ino !== ino) return;
    released = true;
    const stage = join(staging, `${randomUUID()}.x`);
    await writeFile(stage, bytes, { flag: "wx", mode });
    await rename(stage, path).catch(async (error: unknown) => {
      await removeQuietly(stage);
      throw error;
    });
  };
  const empty = new Uint8Array(0);
  if (key !== undefined) {
    await replace(
      keyFile({ keys: join(dirname(dirname(dir)), KEYS_DIR) }, basename(dir), key),
      head,
    );
  }
  await replace(versionFile(dir, version, "r"), empty);
  await replace(tombstone, empty);
  return released;
}

/** Deletes one version: entomb, fsync, drop; false when it was not published. */
export async function unpublish(
  dir: string,
  version: number,
  settings: Pick<WriteSettings, "durability">,
): Promise<boolean> {
  if (!(await entomb(dir, version))) return false;
  await syncDirectory(dir, settings);
  await dropDeleted(dir, version);
  return true;
}

/**
 * Decodes a version's metadata record (from `<v>.m`, or the idempotency key binding it was
 * linked from), checked to belong to `at`; with `at.version` absent, any version.
 */
export function decodeMeta(
  bytes: Buffer,
  at: Omit<VersionAddress, "version"> & { readonly version?: number },
  what = "the metadata file",
): ArtifactMeta {
  const detail = at.version === undefined ? {} : { version: at.version };
  const record = openSealedRecord(bytes, what, detail);
  let meta: ArtifactMeta;
  try {
    meta = checkMetaReply(record, at.scope, at.name);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw corruptArtifact(`${what} is invalid: ${reason}`, detail, error);
  }
  if (at.version !== undefined && meta.version !== at.version) {
    throw corruptArtifact(`${what} names another version`, detail);
  }
  return Object.freeze({
    scope: at.scope,
    name: at.name,
    version: meta.version,
    mimeType: meta.mimeType,
    size: meta.size,
    sha256: meta.sha256,
    createdAt: meta.createdAt,
    metadata: meta.metadata,
    ...(meta.idempotencyKey === undefined ? {} : { idempotencyKey: meta.idempotencyKey }),
  });
}
