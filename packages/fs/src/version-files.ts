import { rename } from "node:fs/promises";
import { type ArtifactMeta, checkMetaReply, corruptArtifact, type Scope } from "@artifact-kit/core";
import { compareNumbers } from "@artifact-kit/core/adapter";
import {
  isMissing,
  pathExists,
  removeIfPossible,
  removeIfPresent,
  syncDirectory,
  type WriteSettings,
} from "./io.js";
import { VERSION_FILE_PATTERN, versionFile } from "./layout.js";
import { scanStoreDirectory } from "./records.js";
import { openSealedRecord } from "./sealed-record.js";
import { releaseVersionFile } from "./version-release.js";

// The files of one version in its name directory: `<v>.r` (reservation, written whole as the
// version file, version-file.ts), `<v>.m` (the publication point: a link of the version file)
// and `<v>.t` (tombstone: the metadata a delete moved aside). Stores written before the
// version file have the record alone in `<v>.m`, the payload in `<v>.d` and the block
// digests of a version of more than one block in `<v>.r`. A version is live while its `<v>.m` exists and its
// `<v>.t` does not: the tombstone is what a delete decides by, so a crash, a retry with its
// idempotency key or repair can tell a deleted version from one whose publication was cut
// short (both leave data without metadata). Reads check every file against the others;
// every mismatch is corrupt_artifact, never a fallback.

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
export async function dropDeleted(
  dir: string,
  version: number,
  settings: Pick<WriteSettings, "durability">,
): Promise<void> {
  await removeIfPossible(versionFile(dir, version, "d"));
  await removeIfPresent(versionFile(dir, version, "m"));
  // The delete is decided and durable: letting go of the bytes is best effort, and repair
  // tries again (a damaged tombstone stays as it is).
  await releaseVersionFile(dir, version, settings).catch(() => false);
}

/** Deletes one version: entomb, fsync, drop; false when it was not published. */
export async function unpublish(
  dir: string,
  version: number,
  settings: Pick<WriteSettings, "durability">,
): Promise<boolean> {
  if (!(await entomb(dir, version))) return false;
  await syncDirectory(dir, settings);
  await dropDeleted(dir, version, settings);
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
