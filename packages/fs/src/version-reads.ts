import { createHash } from "node:crypto";
import {
  type ArtifactErrorDetail,
  type ArtifactMeta,
  corruptArtifact,
  notFound,
} from "@artifact-kit/core";
import { blockCount, checkBlockDigests, type StoredArtifact } from "@artifact-kit/core/adapter";
import { pathExists, readExactly, readExactlyHashed, releaseInBackground } from "./io.js";
import { type ArtifactPaths, versionFile } from "./layout.js";
import type { ReadOnlyFile } from "./read-only-file.js";
import { openChecked, openCheckedWithFirst, readSmallFile } from "./records.js";
import {
  FIRST_READ_BYTES,
  MAX_METADATA_FILE_BYTES,
  readTail,
  readVersionHead,
  versionFileBytes,
} from "./version-file.js";
import { decodeMeta, isDeleted, type VersionAddress } from "./version-files.js";

// Reads of published versions. A version is read from `<v>.m`: a version file (format 2,
// version-file.ts) holds the record, the payload and the block digests; a record of the
// format before has its payload in `<v>.d` and its block digests in `<v>.r`. Every mismatch
// is corrupt_artifact, never a fallback.

/** Digests are stored as concatenated lowercase hex. */
const DIGEST_CHARS = 64;

interface OpenedVersion {
  readonly meta: ArtifactMeta;
  /** The open file holding the payload, at [offset, offset + size). */
  readonly data: { readonly handle: ReadOnlyFile; readonly offset: number; readonly size: number };
  readonly blocks: readonly string[] | undefined;
  /** The file's first bytes as read, which hold the whole payload of a small version. */
  readonly first: Buffer;
}

const METADATA = "the metadata file";

/**
 * A version file or a record of the format before (`<v>.m` or a key's binding), opened with
 * its first bytes; undefined when it is not there.
 */
async function openRecordFile(path: string, what: string, detail: ArtifactErrorDetail) {
  const opened = await openCheckedWithFirst(path, what, detail, FIRST_READ_BYTES);
  if (!opened) return undefined;
  try {
    const head = await readVersionHead(
      opened.handle,
      opened.first,
      opened.size,
      MAX_METADATA_FILE_BYTES,
      what,
      detail,
    );
    return { ...opened, head };
  } catch (error) {
    releaseInBackground(opened.handle);
    throw error;
  }
}

/** A whole record of the format before format 2, from its first bytes and its handle. */
async function legacyRecord(
  opened: { handle: ReadOnlyFile; size: number; first: Buffer },
  what: string,
  detail: ArtifactErrorDetail,
): Promise<Buffer> {
  if (opened.size > MAX_METADATA_FILE_BYTES) {
    throw corruptArtifact(`${what} is larger than ${MAX_METADATA_FILE_BYTES} bytes`, detail);
  }
  if (opened.first.byteLength === opened.size) return opened.first;
  const whole = await readExactly(opened.handle, opened.size);
  if (!whole) throw corruptArtifact(`${what} shrank while it was read`, detail);
  return whole;
}

/**
 * The record a version file or a record of the format before holds, and whether it is a
 * version file (which carries its payload); undefined when the file is not there.
 */
export async function readRecordFile(
  path: string,
  what: string,
  detail: ArtifactErrorDetail,
): Promise<{ readonly record: Buffer; readonly versionFile: boolean } | undefined> {
  const opened = await openRecordFile(path, what, detail);
  if (!opened) return undefined;
  try {
    return opened.head.format === 2
      ? { record: opened.head.record, versionFile: true }
      : { record: await legacyRecord(opened, what, detail), versionFile: false };
  } finally {
    releaseInBackground(opened.handle);
  }
}

/**
 * Where a published version's payload lies: in its version file after the head, or in a store
 * written before version files, the whole of `<v>.d`. For diagnostics, tests and tools (a
 * checker that flips a stored byte, say); `paths` from fsArtifactPaths.
 */
export async function fsPayloadLocation(
  paths: Pick<ArtifactPaths, "metadata" | "data">,
): Promise<{ readonly path: string; readonly offset: number }> {
  const opened = await openRecordFile(paths.metadata, METADATA, {});
  if (!opened) throw notFound(`a published version at ${paths.metadata}`);
  releaseInBackground(opened.handle);
  return opened.head.format === 2
    ? { path: paths.metadata, offset: opened.head.payloadOffset }
    : { path: paths.data, offset: 0 };
}

/** A published version's record; undefined when it is not (or no longer) published. */
export async function readMeta(at: VersionAddress): Promise<ArtifactMeta | undefined> {
  const read = await readRecordFile(versionFile(at.dir, at.version, "m"), METADATA, detailOf(at));
  return read === undefined ? undefined : decodeMeta(read.record, at);
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
 * A published version's record, checked against the size of its payload; undefined when it
 * is not (or no longer) published.
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
  // The first read takes the head (and a small version whole); the rest of a larger payload
  // is read straight into the buffer the caller gets, in pieces hashed as they come. A first
  // read of a whole piece (256 KiB) started the hash one round trip sooner but cost its own
  // buffer and a copy on the main thread, the thread that hashes: 4-8% of a 1 MiB get.
  const opened = await openVersion(at, false);
  if (!opened) return undefined;
  const { meta, data, first } = opened;
  try {
    const end = data.offset + data.size;
    // What the first read took of the payload is hashed from there, not read again (a small
    // payload copied out of the larger first buffer, which it would otherwise keep alive).
    const read =
      end <= first.byteLength
        ? hashed(Buffer.from(first.subarray(data.offset, end)))
        : await readExactlyHashed(
            data.handle,
            data.size,
            data.offset,
            first.subarray(Math.min(data.offset, first.byteLength)),
          );
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

function hashed(bytes: Buffer): { bytes: Buffer; sha256: string } {
  return { bytes, sha256: createHash("sha256").update(bytes).digest("hex") };
}

/**
 * Opens a published version's payload, checked against its record's size, and with
 * `withBlocks` its block digests; the caller closes the handle. Undefined when the version
 * is not (or no longer) published.
 */
export async function openVersion(
  at: VersionAddress,
  withBlocks: boolean,
): Promise<OpenedVersion | undefined> {
  const detail = detailOf(at);
  const opened = await openRecordFile(versionFile(at.dir, at.version, "m"), METADATA, detail);
  if (!opened) return undefined;
  const { handle, size, first, head } = opened;
  let handed = false;
  try {
    if (head.format === 1) {
      return await openLegacyVersion(at, await legacyRecord(opened, METADATA, detail), withBlocks);
    }
    const meta = decodeMeta(head.record, at);
    if (await deletedBesideMetadata(meta, at)) return undefined;
    // Written whole and synced before it was linked to `<v>.m`: any other size is damage.
    const expected = versionFileBytes(meta, head.payloadOffset);
    if (size !== expected) {
      throw corruptArtifact(
        `the version file holds ${size} bytes, its record says ${expected}`,
        detailOf(at),
      );
    }
    const blocks = withBlocks
      ? parseBlocks(await readTail(handle, head.payloadOffset, meta.size), meta)
      : undefined;
    handed = true;
    return { meta, data: { handle, offset: head.payloadOffset, size: meta.size }, blocks, first };
  } finally {
    if (!handed) releaseInBackground(handle);
  }
}

/**
 * Only a keyed version can have metadata beside a tombstone: the late link of a put that
 * finished its key's binding after a delete and has not taken it back yet (keys.ts).
 */
async function deletedBesideMetadata(meta: ArtifactMeta, at: VersionAddress): Promise<boolean> {
  return meta.idempotencyKey !== undefined && (await isDeleted(at.dir, at.version));
}

/** A version of the format before format 2: its payload is `<v>.d`, its blocks in `<v>.r`. */
async function openLegacyVersion(
  at: VersionAddress,
  record: Buffer,
  withBlocks: boolean,
): Promise<OpenedVersion | undefined> {
  const detail = detailOf(at);
  const meta = decodeMeta(record, at);
  if (await deletedBesideMetadata(meta, at)) return undefined;
  const data = await openChecked(versionFile(at.dir, at.version, "d"), "the data file", detail);
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
    if (data.size !== meta.size) {
      throw corruptArtifact(
        `the data file holds ${data.size} bytes, the metadata says ${meta.size}`,
        detail,
      );
    }
    const blocks = withBlocks ? await readLegacyBlocks(at.dir, meta) : undefined;
    return {
      meta,
      data: { handle: data.handle, offset: 0, size: data.size },
      blocks,
      first: Buffer.alloc(0),
    };
  } catch (error) {
    await data.handle.close();
    throw error;
  }
}

/** The block digests a version of the format before format 2 recorded in its reservation. */
async function readLegacyBlocks(dir: string, meta: ArtifactMeta): Promise<readonly string[]> {
  const count = blockCount(meta.size);
  const text = (
    await readSmallFile(
      versionFile(dir, meta.version, "r"),
      (count + 1) * DIGEST_CHARS,
      "the version reservation",
      { version: meta.version },
    )
  )?.toString("latin1");
  return parseBlocks(text, meta);
}

/**
 * Block digests as recorded: the whole data's SHA-256 and then each block's, so that a
 * download (which checks blocks, not the whole) refuses a record whose sha256 was changed, as
 * a get does. Reservations written before the whole digest was recorded hold the blocks only;
 * a version of at most one block records nothing (its one block's digest is its SHA-256).
 */
function parseBlocks(text: string | undefined, meta: ArtifactMeta): readonly string[] {
  const detail = { version: meta.version };
  const count = blockCount(meta.size);
  const whole = text?.length === (count + 1) * DIGEST_CHARS;
  if (whole && text.slice(0, DIGEST_CHARS) !== meta.sha256) {
    throw corruptArtifact("the metadata's SHA-256 is not the one recorded at publication", detail);
  }
  if (text === "" && count <= 1) return count === 0 ? [] : [meta.sha256];
  const listed = whole ? text.slice(DIGEST_CHARS) : text;
  const digests =
    listed?.length === count * DIGEST_CHARS
      ? Array.from({ length: count }, (_, i) =>
          listed.slice(i * DIGEST_CHARS, (i + 1) * DIGEST_CHARS),
        )
      : undefined;
  const blocks = checkBlockDigests(digests, meta.size);
  if (!blocks) throw corruptArtifact("the version holds no valid block digests", detail);
  return blocks;
}

function detailOf(at: VersionAddress): { version: number } {
  return { version: at.version };
}
