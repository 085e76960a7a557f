import { type FileHandle, rename } from "node:fs/promises";
import { type ArtifactMeta, checkMetaReply, corruptArtifact, type Scope } from "@artifact-kit/core";
import {
  blockCount,
  checkBlockDigests,
  compareNumbers,
  type DataDigest,
  type StoredArtifact,
} from "@artifact-kit/core/adapter";
import {
  isMissing,
  pathExists,
  readExactlyHashed,
  releaseInBackground,
  removeIfPossible,
  removeIfPresent,
  syncDirectory,
  syncHandle,
  type WriteSettings,
} from "./io.js";
import { VERSION_FILE_PATTERN, versionFile } from "./layout.js";
import { openChecked, readSmallFile, scanStoreDirectory } from "./records.js";
import { openSealedRecord } from "./sealed-record.js";

// The files of one version in its name directory: `<v>.r` (reservation, holding the block
// digests of a version of more than one block, else empty), `<v>.d` (data, written in place
// before publication), `<v>.m` (metadata, the publication point) and `<v>.t` (tombstone, the
// metadata a delete moved aside). A version is live while its `<v>.m` exists and its
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

/** Digests are stored in a version's reservation as concatenated lowercase hex. */
const DIGEST_CHARS = 64;

/** Where one version of one artifact lives. */
export interface VersionAddress {
  readonly scope: Scope;
  readonly name: string;
  /** The name's directory. */
  readonly dir: string;
  readonly version: number;
}

interface OpenedVersion {
  readonly meta: ArtifactMeta;
  readonly data: { readonly handle: FileHandle; readonly size: number };
  readonly blocks: readonly string[] | undefined;
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
 * A published version's record, checked against its data file's size; undefined when it is
 * not (or no longer) published.
 */
export async function readHead(at: VersionAddress): Promise<ArtifactMeta | undefined> {
  const opened = await openVersion(at, false);
  if (!opened) return undefined;
  releaseInBackground(opened.data.handle);
  return opened.meta;
}

/**
 * Reads and checks one published version's record and bytes; undefined when it is not (or
 * no longer) published. Every mismatch is corrupt_artifact.
 */
export async function readContent(at: VersionAddress): Promise<StoredArtifact | undefined> {
  const opened = await openVersion(at, false);
  if (!opened) return undefined;
  const { meta, data } = opened;
  try {
    const read = await readExactlyHashed(data.handle, data.size);
    if (!read) throw corruptArtifact("the data file shrank while it was read", detailOf(at));
    const { bytes } = read;
    if (read.sha256 !== meta.sha256) {
      throw corruptArtifact("the data does not match its SHA-256", detailOf(at));
    }
    // Read fresh for this call: the caller may keep it without a copy.
    const view = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    return { meta, data: view, shared: false };
  } finally {
    releaseInBackground(data.handle);
  }
}

/** A published version's record; undefined when it is not (or no longer) published. */
export async function readMeta(at: VersionAddress): Promise<ArtifactMeta | undefined> {
  const metaBytes = await readSmallFile(
    versionFile(at.dir, at.version, "m"),
    MAX_METADATA_FILE_BYTES,
    "the metadata file",
    detailOf(at),
  );
  return metaBytes === undefined ? undefined : decodeMeta(metaBytes, at);
}

/**
 * A live version's record, as a listing shows it: undefined when it is not published or a
 * tombstone says it is deleted (only a keyed version can have both, see openVersion).
 */
export async function readLiveMeta(at: VersionAddress): Promise<ArtifactMeta | undefined> {
  const meta = await readMeta(at);
  if (meta?.idempotencyKey !== undefined && (await isDeleted(at.dir, at.version))) return undefined;
  return meta;
}

/**
 * Opens a published version's data file, checked against its metadata's size, and with
 * `withBlocks` its block digests; the caller closes the handle. Undefined when the version
 * is not (or no longer) published.
 */
export async function openVersion(
  at: VersionAddress,
  withBlocks: boolean,
): Promise<OpenedVersion | undefined> {
  const detail = detailOf(at);
  // The metadata is read while the data file opens: a get waits for one round of file
  // system calls instead of two.
  const [metaRead, dataOpened] = await Promise.allSettled([
    readMeta(at),
    openChecked(versionFile(at.dir, at.version, "d"), "the data file", detail),
  ]);
  const dropData = async () => {
    if (dataOpened.status === "fulfilled") await dataOpened.value?.handle.close();
  };
  if (metaRead.status === "rejected" || !metaRead.value) {
    await dropData();
    if (metaRead.status === "rejected") throw metaRead.reason;
    return undefined;
  }
  // Only a keyed version can have metadata beside a tombstone: the late link of a put that
  // finished its key's binding after a delete and has not taken it back yet (keys.ts).
  if (metaRead.value.idempotencyKey !== undefined) {
    const deleted = await isDeleted(at.dir, at.version).catch(async (error: unknown) => {
      await dropData();
      throw error;
    });
    if (deleted) {
      await dropData();
      return undefined;
    }
  }
  if (dataOpened.status === "rejected") throw dataOpened.reason;
  const meta = metaRead.value;
  const data = dataOpened.value;
  if (!data) {
    // delete() unpublishes before it removes the data: if the metadata is gone too, the
    // version was deleted under us; if not, its data is missing.
    if (
      (await pathExists(versionFile(at.dir, at.version, "m"))) &&
      !(await isDeleted(at.dir, at.version))
    ) {
      throw corruptArtifact("the data file is missing", detail);
    }
    return undefined;
  }
  try {
    // A put writes its payload in place before it publishes the metadata: the file may have
    // been opened while it was still being written, and the metadata read once published.
    // Then the same file is whole now; only a size that still differs is damage.
    const size = data.size === meta.size ? data.size : (await data.handle.stat()).size;
    if (size !== meta.size) {
      throw corruptArtifact(
        `the data file holds ${size} bytes, the metadata says ${meta.size}`,
        detail,
      );
    }
    const blocks = withBlocks ? await readBlocks(at.dir, meta) : undefined;
    return { meta, data: { handle: data.handle, size }, blocks };
  } catch (error) {
    await data.handle.close();
    throw error;
  }
}

/**
 * The block digests recorded in a version's reservation, checked against its metadata. The
 * reservation holds the whole data's SHA-256 and then each block's, so that a download (which
 * checks blocks, not the whole) refuses a record whose sha256 was changed, as a get does.
 * Reservations written before the whole digest was recorded hold the blocks only.
 */
async function readBlocks(dir: string, meta: ArtifactMeta): Promise<readonly string[]> {
  const detail = { version: meta.version };
  const count = blockCount(meta.size);
  const text = (
    await readSmallFile(
      versionFile(dir, meta.version, "r"),
      (count + 1) * DIGEST_CHARS,
      "the version reservation",
      detail,
    )
  )?.toString("latin1");
  const whole = text?.length === (count + 1) * DIGEST_CHARS;
  if (whole && text.slice(0, DIGEST_CHARS) !== meta.sha256) {
    throw corruptArtifact("the metadata's SHA-256 is not the one recorded at publication", detail);
  }
  // A version of at most one block records nothing: its one block's digest is its SHA-256,
  // which a download checks the data against, as a get does.
  if (text === "" && count <= 1) return count === 0 ? [] : [meta.sha256];
  const listed = whole ? text.slice(DIGEST_CHARS) : text;
  const digests =
    listed?.length === count * DIGEST_CHARS
      ? Array.from({ length: count }, (_, i) =>
          listed.slice(i * DIGEST_CHARS, (i + 1) * DIGEST_CHARS),
        )
      : undefined;
  const blocks = checkBlockDigests(digests, meta.size);
  if (!blocks) throw corruptArtifact("the reservation holds no valid block digests", detail);
  return blocks;
}

/**
 * Records a version's block digests in its reservation, which it closes: the whole data's
 * SHA-256, then each block's (lowercase hex). A version of at most one block leaves it empty
 * (nothing to make durable).
 */
export async function recordBlocks(
  reservation: FileHandle,
  digest: DataDigest,
  settings: WriteSettings,
): Promise<void> {
  try {
    if (digest.blocks.length > 1) {
      await reservation.writeFile(digest.sha256 + digest.blocks.join(""));
      await syncHandle(reservation, settings, true);
    }
  } catch (error) {
    await reservation.close().catch(() => {});
    throw error;
  }
  releaseInBackground(reservation);
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

function detailOf(at: VersionAddress): { version: number } {
  return { version: at.version };
}
