import { type ArtifactErrorDetail, corruptArtifact } from "@artifact-kit/core";
import { errorCode, readExactly, readStoreDirectory, releaseInBackground } from "./io.js";
import { ReadOnlyFile } from "./read-only-file.js";

// Checked reads of the store's own files and directories: every surprise (a foreign file
// type, an oversized record, bytes that are not UTF-8 JSON) is corrupt_artifact.

/** On-disk format of slot, metadata and idempotency key files. */
export const FORMAT = 1;

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Parses a whole small file as UTF-8 JSON, or throws corrupt_artifact. */
export function parseJsonFile(bytes: Buffer, what: string, detail: ArtifactErrorDetail): unknown {
  try {
    return JSON.parse(utf8.decode(bytes));
  } catch (error) {
    throw corruptArtifact(`${what} is not UTF-8 JSON`, detail, error);
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Parses a small file holding one JSON record of the store's format, or throws corrupt_artifact. */
export function parseFormatRecord(
  bytes: Buffer,
  what: string,
  detail: ArtifactErrorDetail,
): Record<string, unknown> {
  const record = parseJsonFile(bytes, what, detail);
  if (!isRecord(record) || record.format !== FORMAT) {
    throw corruptArtifact(`${what} has an unknown format`, detail);
  }
  return record;
}

/** What opening a store file without following links fails with when it is no regular file. */
const NOT_A_REGULAR_FILE = new Set(["ELOOP", "EISDIR", "ENOTDIR", "ENXIO"]);

/** Opens a store file for reading without following links; undefined if absent. */
async function openStoreFile(
  path: string,
  what: string,
  detail: ArtifactErrorDetail,
): Promise<ReadOnlyFile | undefined> {
  try {
    return await ReadOnlyFile.open(path);
  } catch (error) {
    // Something else than a regular file sits there (a symbolic link, a directory in the
    // path): the store is corrupt. Any other failure (EIO, EMFILE, EACCES) is the disk's or
    // the process's, and says nothing about the store's contents.
    if (!NOT_A_REGULAR_FILE.has(errorCode(error) ?? "")) throw error;
    throw corruptArtifact(`${what} cannot be opened as a regular file`, detail, error);
  }
}

export async function openChecked(
  path: string,
  what: string,
  detail: ArtifactErrorDetail,
): Promise<{ handle: ReadOnlyFile; size: number } | undefined> {
  const handle = await openStoreFile(path, what, detail);
  if (!handle) return undefined;
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw corruptArtifact(`${what} is not a regular file`, detail);
    return { handle, size: stats.size };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * openChecked, and the file's first `firstRead` bytes (fewer if it is shorter) read at the
 * same time as its size is checked: one round trip less to the file system's threads. The
 * read of something other than a regular file cannot wait (O_NONBLOCK), and what it read is
 * dropped when the check refuses the file.
 */
export async function openCheckedWithFirst(
  path: string,
  what: string,
  detail: ArtifactErrorDetail,
  firstRead: number,
): Promise<{ handle: ReadOnlyFile; size: number; first: Buffer } | undefined> {
  const handle = await openStoreFile(path, what, detail);
  if (!handle) return undefined;
  try {
    const buffer = Buffer.allocUnsafeSlow(firstRead);
    const [stats, read] = await Promise.allSettled([
      handle.stat(),
      handle.read(buffer, 0, firstRead, 0),
    ]);
    if (stats.status === "rejected") throw stats.reason;
    if (!stats.value.isFile()) throw corruptArtifact(`${what} is not a regular file`, detail);
    if (read.status === "rejected") throw read.reason;
    const size = stats.value.size;
    // A store file never changes once it can be read: one that did is damage.
    if (read.value.bytesRead !== Math.min(size, firstRead)) {
      throw corruptArtifact(`${what} changed while it was read`, detail);
    }
    return { handle, size, first: buffer.subarray(0, read.value.bytesRead) };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Reads a whole file after checking its size; undefined if absent. */
export async function readSmallFile(
  path: string,
  maxBytes: number,
  what: string,
  detail: ArtifactErrorDetail,
): Promise<Buffer | undefined> {
  const opened = await openChecked(path, what, detail);
  if (!opened) return undefined;
  const { handle, size } = opened;
  try {
    if (size > maxBytes) throw corruptArtifact(`${what} is larger than ${maxBytes} bytes`, detail);
    const bytes = await readExactly(handle, size);
    if (!bytes) throw corruptArtifact(`${what} shrank while it was read`, detail);
    return bytes;
  } finally {
    releaseInBackground(handle);
  }
}

/** Reads a protocol directory; more than maxScanEntries entries means foreign files. */
export async function scanStoreDirectory(dir: string, maxScanEntries: number): Promise<string[]> {
  const { names, truncated } = await readStoreDirectory(dir, maxScanEntries);
  if (truncated) {
    throw corruptArtifact(`a store directory holds more than maxScanEntries entries`, {
      maxScanEntries,
    });
  }
  return names;
}
