import { compareUtf8, corruptArtifact, sha256Hex, validateName } from "@artifact-kit/core";
import { readExactly } from "./io.js";
import type { ReadOnlyFile } from "./read-only-file.js";
import { isRecord, openChecked, parseJsonFile } from "./records.js";

// One generation of a scope's ordered name index: an immutable file, written whole and
// fsynced before it is linked into place, so a reader sees all of it or none. The names are
// stored in UTF-8 order in blocks, each with its SHA-256, behind a header that lists every
// block's first name: a reader reads the header and then only the blocks its page needs.
//
//   "akni1 <header length, 10 digits> <SHA-256 of the header>\n"
//   header: {"count": n, "blocks": [[first name, offset, length, sha256], ...]}
//   blocks: each a JSON array of names; offsets count from the end of the header

const MAGIC = "akni1";
const PREFIX_BYTES = MAGIC.length + 1 + 10 + 1 + 64 + 1;
/** Names per block: a page of 100 reads one or two blocks. */
export const NAMES_PER_BLOCK = 256;
/** Largest header read: a block's entry is at most about 1.2 KiB (a 1,024-byte name). */
const MAX_HEADER_BYTES = 64 * 1024 * 1024;
/** Largest block read: 256 names of 1,024 bytes, JSON-escaped. */
const MAX_BLOCK_BYTES = NAMES_PER_BLOCK * 6 * 1024 + 16;

const WHAT = "the name index";

export interface IndexBlock {
  readonly first: string;
  readonly offset: number;
  readonly length: number;
  readonly sha256: string;
}

export interface IndexHeader {
  readonly count: number;
  readonly blocks: readonly IndexBlock[];
  /** Where the blocks start in the file. */
  readonly bodyStart: number;
}

/** The bytes of an index generation holding `sorted` (names in UTF-8 order, no repeats). */
export function encodeNameIndex(sorted: readonly string[]): Buffer {
  const blocks: Buffer[] = [];
  const entries: [string, number, number, string][] = [];
  let offset = 0;
  for (let at = 0; at < sorted.length; at += NAMES_PER_BLOCK) {
    const names = sorted.slice(at, at + NAMES_PER_BLOCK);
    const bytes = Buffer.from(JSON.stringify(names));
    entries.push([names[0] as string, offset, bytes.byteLength, sha256Hex(bytes)]);
    blocks.push(bytes);
    offset += bytes.byteLength;
  }
  const header = Buffer.from(JSON.stringify({ count: sorted.length, blocks: entries }));
  const prefix = `${MAGIC} ${String(header.byteLength).padStart(10, "0")} ${sha256Hex(header)}\n`;
  return Buffer.concat([Buffer.from(prefix), header, ...blocks]);
}

/** Thrown for anything unexpected in an index file: the caller rebuilds the index. */
function damaged(reason: string, cause?: unknown) {
  return corruptArtifact(`${WHAT} ${reason}`, { kind: "name-index" }, cause);
}

/** Opens an index generation; undefined if it is gone (a newer one replaced it). */
export async function openNameIndex(
  path: string,
): Promise<{ handle: ReadOnlyFile; size: number } | undefined> {
  return openChecked(path, WHAT, { kind: "name-index" });
}

async function readAt(handle: ReadOnlyFile, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafeSlow(length);
  let offset = 0;
  while (offset < length) {
    const { bytesRead } = await handle.read(buffer, offset, length - offset, position + offset);
    if (bytesRead === 0) throw damaged("ends early");
    offset += bytesRead;
  }
  return buffer;
}

/** Reads and checks the header of an open index generation. */
export async function readIndexHeader(handle: ReadOnlyFile, size: number): Promise<IndexHeader> {
  if (size < PREFIX_BYTES) throw damaged("is too short");
  const prefix = (await readExactly(handle, PREFIX_BYTES))?.toString("latin1") ?? "";
  const match = /^akni1 ([0-9]{10}) ([0-9a-f]{64})\n$/.exec(prefix);
  if (!match) throw damaged("has an unknown format");
  const headerBytes = Number(match[1]);
  if (headerBytes > MAX_HEADER_BYTES || PREFIX_BYTES + headerBytes > size) {
    throw damaged("has a header out of bounds");
  }
  const bytes = await readAt(handle, PREFIX_BYTES, headerBytes);
  if (sha256Hex(bytes) !== match[2]) throw damaged("has a header that fails its SHA-256");
  const header = parseJsonFile(bytes, WHAT, { kind: "name-index" });
  if (!isRecord(header) || !Array.isArray(header.blocks) || typeof header.count !== "number") {
    throw damaged("has a malformed header");
  }
  const bodyStart = PREFIX_BYTES + headerBytes;
  const blocks = header.blocks.map((entry: unknown): IndexBlock => {
    if (!Array.isArray(entry) || entry.length !== 4) throw damaged("has a malformed block entry");
    const [first, offset, length, sha256] = entry as unknown[];
    if (
      typeof first !== "string" ||
      !Number.isSafeInteger(offset) ||
      !Number.isSafeInteger(length) ||
      typeof sha256 !== "string" ||
      (length as number) > MAX_BLOCK_BYTES ||
      bodyStart + (offset as number) + (length as number) > size
    ) {
      throw damaged("has a block entry out of bounds");
    }
    return { first, offset: offset as number, length: length as number, sha256 };
  });
  for (let at = 1; at < blocks.length; at++) {
    if (compareUtf8((blocks[at - 1] as IndexBlock).first, (blocks[at] as IndexBlock).first) >= 0) {
      throw damaged("has blocks out of order");
    }
  }
  return { count: header.count, blocks, bodyStart };
}

/** Reads one block and checks its SHA-256, its names and their order. */
export async function readIndexBlock(
  handle: ReadOnlyFile,
  header: IndexHeader,
  at: number,
): Promise<readonly string[]> {
  const block = header.blocks[at] as IndexBlock;
  const bytes = await readAt(handle, header.bodyStart + block.offset, block.length);
  if (sha256Hex(bytes) !== block.sha256) throw damaged("has a block that fails its SHA-256");
  const names = parseJsonFile(bytes, WHAT, { kind: "name-index" });
  if (!Array.isArray(names) || names[0] !== block.first) throw damaged("has a malformed block");
  let previous: string | undefined;
  for (const name of names) {
    try {
      validateName(name);
    } catch (error) {
      throw damaged("holds an invalid name", error);
    }
    if (previous !== undefined && compareUtf8(previous, name as string) >= 0) {
      throw damaged("has names out of order");
    }
    previous = name as string;
  }
  return Object.freeze(names as string[]);
}
