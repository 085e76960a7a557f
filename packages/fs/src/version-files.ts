import type { FileHandle } from "node:fs/promises";
import {
  type ArtifactMeta,
  checkMetaReply,
  corruptArtifact,
  type Scope,
  sha256Hex,
} from "@artifact-kit/core";
import {
  blockCount,
  checkBlockDigests,
  compareNumbers,
  type DataDigest,
  type StoredArtifact,
} from "@artifact-kit/core/adapter";
import {
  pathExists,
  readExactly,
  releaseInBackground,
  removeIfPossible,
  removeIfPresent,
  syncDirectory,
} from "./io.js";
import { VERSION_FILE_PATTERN, versionFile } from "./layout.js";
import { openChecked, parseFormatRecord, readSmallFile, scanStoreDirectory } from "./records.js";

// The files of one version in its name directory: `<v>.r` (reservation, holding the block
// digests), `<v>.d` (data) and `<v>.m` (metadata, the publication point). Reads check every
// file against the others; every mismatch is corrupt_artifact, never a fallback.

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

/** Published (metadata present) versions of a name, ascending. */
export async function liveVersions(dir: string, maxScanEntries: number): Promise<number[]> {
  const versions: number[] = [];
  for (const entry of await scanStoreDirectory(dir, maxScanEntries)) {
    const match = VERSION_FILE_PATTERN.exec(entry);
    if (match?.[2] === "m") versions.push(Number(match[1]));
  }
  return versions.sort(compareNumbers);
}

/**
 * Removes a version's metadata, then its data, then its metadata again: a put finishing an
 * idempotency key binding may have linked it back in between (see keys.ts); false when it
 * was not published.
 */
export async function unpublish(dir: string, version: number): Promise<boolean> {
  if (!(await removeIfPresent(versionFile(dir, version, "m")))) return false;
  // A power cut may keep a later unlink and lose an earlier unsynced one: without this
  // fsync, the payload's removal could survive and the metadata's not, leaving a published
  // version without data (found by the power-loss trials).
  await syncDirectory(dir);
  await removeIfPossible(versionFile(dir, version, "d"));
  await removeIfPresent(versionFile(dir, version, "m"));
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
    const bytes = await readExactly(data.handle, data.size);
    if (!bytes) throw corruptArtifact("the data file shrank while it was read", detailOf(at));
    if (sha256Hex(bytes) !== meta.sha256) {
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
  if (metaRead.status === "rejected" || !metaRead.value) {
    if (dataOpened.status === "fulfilled") await dataOpened.value?.handle.close();
    if (metaRead.status === "rejected") throw metaRead.reason;
    return undefined;
  }
  if (dataOpened.status === "rejected") throw dataOpened.reason;
  const meta = metaRead.value;
  const data = dataOpened.value;
  if (!data) {
    // delete() removes the metadata before the data: if the metadata is gone too, the
    // version was deleted under us; if not, its data is missing.
    if (await pathExists(versionFile(at.dir, at.version, "m"))) {
      throw corruptArtifact("the data file is missing", detail);
    }
    return undefined;
  }
  try {
    if (data.size !== meta.size) {
      throw corruptArtifact(
        `the data file holds ${data.size} bytes, the metadata says ${meta.size}`,
        detail,
      );
    }
    const blocks = withBlocks ? await readBlocks(at.dir, meta) : undefined;
    return { meta, data, blocks };
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

/** The reservation's content: the whole data's SHA-256, then each block's (lowercase hex). */
export function reservationRecord(digest: DataDigest): string {
  return digest.sha256 + digest.blocks.join("");
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
  const record = parseFormatRecord(bytes, what, detail);
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
