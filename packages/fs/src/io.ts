import { createHash } from "node:crypto";
import { constants, type Dirent, lstat as lstatWithCallback } from "node:fs";
import { type FileHandle, open, opendir, readdir, unlink } from "node:fs/promises";
import { TRANSFER_BLOCK_BYTES } from "@artifact-kit/core";
import type { ReadOnlyFile } from "./read-only-file.js";

const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL;

export function errorCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error
    ? String((error as { code: unknown }).code)
    : undefined;
}

export const isMissing = (error: unknown): boolean => errorCode(error) === "ENOENT";
export const isTaken = (error: unknown): boolean => errorCode(error) === "EEXIST";

/**
 * Closes a file without making the caller wait for it: one that was only read (the bytes are
 * already checked and in hand, and a failed close of a read-only descriptor loses nothing),
 * or one whose writes have all returned (and been synced, where the store syncs): on a local
 * file system a close reports nothing the write and the sync did not. One thread-pool round
 * trip less on the way to the publication.
 */
export function releaseInBackground(handle: { close(): Promise<void> }): void {
  handle.close().catch(() => {});
}

/**
 * Reads exactly `size` bytes from the start of `handle` into a buffer of its own
 * (never a pooled slice), or returns undefined when the file ends early.
 */
export async function readExactly(handle: ReadOnlyFile, size: number): Promise<Buffer | undefined> {
  const buffer = Buffer.allocUnsafeSlow(size);
  let offset = 0;
  while (offset < size) {
    const { bytesRead } = await handle.read(buffer, offset, size - offset, offset);
    if (bytesRead === 0) return undefined;
    offset += bytesRead;
  }
  return buffer;
}

/**
 * Pieces of a whole-file read that hashes as it goes: small enough that hashing one overlaps
 * the read of the next, large enough that each costs one thread-pool round trip of few.
 */
const HASHED_READ_PIECE_BYTES = 256 * 1024;

/**
 * Reads exactly `size` bytes from position `from` of `handle` into a buffer of its own,
 * hashing each piece (SHA-256) while the file system reads the next, so that the hash costs
 * little more than the read; undefined when the file ends early. `known`, the first bytes of
 * the range when the caller has already read them, is copied rather than read again.
 */
export async function readExactlyHashed(
  handle: ReadOnlyFile,
  size: number,
  from = 0,
  known: Uint8Array = new Uint8Array(0),
): Promise<{ bytes: Buffer; sha256: string } | undefined> {
  const buffer = Buffer.allocUnsafeSlow(size);
  const hash = createHash("sha256");
  const readFrom = (at: number) =>
    handle.read(buffer, at, Math.min(HASHED_READ_PIECE_BYTES, size - at), from + at);
  let offset = Math.min(known.byteLength, size);
  let reading = offset < size ? readFrom(offset) : undefined;
  buffer.set(known.subarray(0, offset));
  hash.update(buffer.subarray(0, offset));
  while (reading) {
    const { bytesRead } = await reading;
    if (bytesRead === 0) return undefined;
    const start = offset;
    offset += bytesRead;
    reading = offset < size ? readFrom(offset) : undefined;
    hash.update(buffer.subarray(start, offset));
  }
  return { bytes: buffer, sha256: hash.digest("hex") };
}

/** Pieces of a streamed read, each in a buffer of its own: one transfer block. */
const READ_PIECE_BYTES = TRANSFER_BLOCK_BYTES;

/**
 * Bytes [start, end) of an open file, in pieces, each read while the caller checks and uses
 * the one before (one piece ahead, so at most two in memory); ends early if the file does.
 */
export async function* readFileRange(
  handle: ReadOnlyFile,
  start: number,
  end: number,
): AsyncGenerator<Uint8Array> {
  const readAt = async (position: number) => {
    const buffer = Buffer.allocUnsafeSlow(Math.min(READ_PIECE_BYTES, end - position));
    const { bytesRead } = await handle.read(buffer, 0, buffer.byteLength, position);
    // A plain Uint8Array view, as every read of the contract returns.
    return new Uint8Array(buffer.buffer, buffer.byteOffset, bytesRead);
  };
  let position = start;
  let next = position < end ? readAt(position) : undefined;
  try {
    while (next) {
      const piece = await next;
      next = undefined;
      if (piece.byteLength === 0) return;
      position += piece.byteLength;
      if (position < end) next = readAt(position);
      yield piece;
    }
  } finally {
    // A caller that stops early (a cancel, then a close) leaves the read ahead to fail alone.
    next?.catch(() => {});
  }
}

/** Writes all of `data` at `position` of the file. */
export async function writeAll(
  handle: FileHandle,
  data: Uint8Array,
  position: number,
): Promise<void> {
  let at = 0;
  while (at < data.byteLength) {
    at += (await handle.write(data, at, data.byteLength - at, position + at)).bytesWritten;
  }
}

/** Writes all of `pieces`, one after the other, from `position`: one call when it can. */
export async function writeAllOf(
  handle: FileHandle,
  pieces: readonly Uint8Array[],
  position: number,
): Promise<void> {
  // An empty piece is left out: libuv would spend a write call of its own on it.
  const nonEmpty = pieces.filter((piece) => piece.byteLength > 0);
  let written = (await handle.writev(nonEmpty, position)).bytesWritten;
  // A short vectored write (rare on a regular file) is finished piece by piece.
  let at = position;
  for (const piece of nonEmpty) {
    const skip = Math.min(written, piece.byteLength);
    written -= skip;
    if (skip < piece.byteLength) await writeAll(handle, piece.subarray(skip), at + skip);
    at += piece.byteLength;
  }
}

/** Creates an empty file exclusively (O_EXCL) and returns it open, for the caller to fsync. */
export function createExclusive(path: string, mode: number): Promise<FileHandle> {
  return open(path, CREATE_FLAGS, mode);
}

/**
 * TEST ONLY, not exported by the package: `skipFsync` turns every fsync of the adapter into a
 * no-op, so that the power-loss trials can show they catch a store that does not sync.
 */
export const testOnlySwitches = { skipFsync: false };

/**
 * How far a store's writes go before it answers. "durable": to the disk (fsync). "process":
 * to the kernel only, no fsync: every step stays atomic and in order for every process of the
 * machine, so a killed process loses nothing acknowledged, but a power cut or a kernel crash
 * may lose or reorder what was acknowledged.
 */
export type FsDurability = "durable" | "process";

/** What the adapter's writes need to know of the store's settings. */
export interface WriteSettings {
  readonly durability: FsDurability;
  /** Mode of every file created. */
  readonly fileMode: number;
}

/**
 * fsync (or with `dataOnly`, fdatasync: the data and the size, not the times, which nothing
 * here reads) of an open file or directory; nothing under "process" durability.
 */
export async function syncHandle(
  handle: FileHandle,
  settings: Pick<WriteSettings, "durability">,
  dataOnly = false,
): Promise<void> {
  if (testOnlySwitches.skipFsync || settings.durability === "process") return;
  await (dataOnly ? handle.datasync() : handle.sync());
}

/**
 * Creates `path` exclusively (O_EXCL), writes `data` and makes it durable (fdatasync: a new
 * file's size is part of its data); removes it again on failure.
 */
export async function createDurably(
  path: string,
  data: Uint8Array | string,
  settings: WriteSettings,
): Promise<void> {
  const handle = await open(path, CREATE_FLAGS, settings.fileMode);
  try {
    await handle.writeFile(data);
    await syncHandle(handle, settings, true);
  } catch (error) {
    await handle.close().catch(() => {});
    await removeQuietly(path);
    throw error;
  }
  releaseInBackground(handle);
}

/**
 * fsync of a directory: makes the entries created, renamed or removed in it durable. Under
 * "process" durability the directory is not even opened.
 */
export async function syncDirectory(
  path: string,
  settings: Pick<WriteSettings, "durability">,
): Promise<void> {
  if (testOnlySwitches.skipFsync || settings.durability === "process") return;
  const handle = await open(path, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    await syncHandle(handle, settings);
  } finally {
    // Only read: once synced, nothing waits on its close (one thread-pool round trip less).
    releaseInBackground(handle);
  }
}

/** Empties the regular file at `path` without following a link; throws for anything else. */
export async function emptyFile(path: string): Promise<void> {
  const handle = await open(path, constants.O_WRONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    if (!(await handle.stat()).isFile()) throw new Error(`${path} is not a regular file`);
    await handle.truncate(0);
  } finally {
    await handle.close();
  }
}

/** Unlinks `path` if it exists; true when this call removed it. */
export async function removeIfPresent(path: string): Promise<boolean> {
  try {
    await unlink(path);
    return true;
  } catch (error) {
    if (isMissing(error)) return false;
    throw error;
  }
}

/**
 * Unlinks an unpublished payload if it can: one that cannot be removed (something other than
 * a file planted in its place, an I/O error) stays for repair, which reports it. The caller
 * has already unpublished the version, which is what counts.
 */
export async function removeIfPossible(path: string): Promise<void> {
  await unlink(path).catch(() => {});
}

/** Best-effort cleanup of a file this request created; never throws. */
export async function removeQuietly(path: string): Promise<void> {
  await unlink(path).catch(() => {});
}

interface Scan {
  readonly entries: Dirent[];
  /** True when the directory holds more than the entries read. */
  readonly truncated: boolean;
}

/** Reads at most `max` entries of a directory (an absent directory is empty). */
export async function scanDirectory(path: string, max: number): Promise<Scan> {
  let dir: Awaited<ReturnType<typeof opendir>>;
  try {
    // Larger reads than the default 32 entries: a name's directory holds three files a version.
    dir = await opendir(path, { bufferSize: 1024 });
  } catch (error) {
    if (isMissing(error)) return { entries: [], truncated: false };
    throw error;
  }
  const entries: Dirent[] = [];
  // Leaving the loop early closes the directory.
  for await (const entry of dir) {
    if (entries.length === max) return { entries, truncated: true };
    entries.push(entry);
  }
  return { entries, truncated: false };
}

/**
 * The entry names of one of the store's own directories, in a single call (a scan entry by
 * entry costs several trips to the file system thread pool, on every "latest" read). The
 * lifetime ceilings keep these directories within maxScanEntries; more than that means
 * foreign files, reported as truncated. Repair, which walks leftovers of any size, scans.
 */
export async function readStoreDirectory(
  path: string,
  max: number,
): Promise<{ names: string[]; truncated: boolean }> {
  let names: string[];
  try {
    names = await readdir(path);
  } catch (error) {
    if (isMissing(error)) return { names: [], truncated: false };
    throw error;
  }
  return names.length > max
    ? { names: names.slice(0, max), truncated: true }
    : { names, truncated: false };
}

/**
 * True if something (of any type, links not followed) exists at `path`. Through the callback
 * `lstat`: an absent path is an everyday answer here (the probe for a newer version on every
 * read of the latest), and the promise API turns it into a rejection with a stack trace
 * captured in JavaScript: about 35 µs of the caller's time a miss on the benchmarks' VM.
 */
export function pathExists(path: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    lstatWithCallback(path, (error) => {
      if (error === null) resolve(true);
      else if (isMissing(error)) resolve(false);
      else reject(error);
    });
  });
}
