import { type ArtifactErrorDetail, type ArtifactMeta, corruptArtifact } from "@artifact-kit/core";
import { blockCount, type DataDigest, newVersionRecord } from "@artifact-kit/core/adapter";
import type { ReadOnlyFile } from "./read-only-file.js";
import { sealRecord } from "./sealed-record.js";

// The version file (format 2): one file that carries a version whole, written to its
// reservation `<v>.r` and published by linking it to `<v>.m`, so that a put makes one file
// durable and its directory once, as the floor of any durable write does.
//
//   AKV2 <record bytes, 10 digits> <payload offset, 10 digits>\n
//   <the sealed metadata record><spaces up to the payload offset>
//   <the payload: exactly the record's size>
//   <a version of more than one block: its SHA-256 and then each block's, lowercase hex>
//
// The payload offset is fixed before the record is known whole (a streamed upload writes its
// payload first), from the widest record the request can have. Stores written before this
// format hold the record alone in `<v>.m` (it starts with "{"), the payload in `<v>.d` and
// the block digests in `<v>.r`; both are read, and nothing converts the old files.

/**
 * Largest metadata record a read takes (and metadata file, in a store written before
 * version files). The largest valid record (a 1,024-byte name, three
 * 256-byte scope ids and a 255-byte MIME type, all of control characters that JSON escapes
 * six-fold, plus 16 KiB of user metadata) is under 29 KiB.
 */
export const MAX_METADATA_FILE_BYTES = 65_536;

const MAGIC = "AKV2";
const FIELD_DIGITS = 10;
/** `AKV2 <10 digits> <10 digits>\n` */
const HEADER_BYTES = MAGIC.length + 1 + FIELD_DIGITS + 1 + FIELD_DIGITS + 1;
const HEADER = /^AKV2 ([0-9]{10}) ([0-9]{10})\n$/;
const DIGEST_CHARS = 64;
/** Largest number a record field can hold (a version, a size, a creation time). */
const WIDEST_NUMBER = Number.MAX_SAFE_INTEGER;

/**
 * How much of a version file a read takes first: the header and any ordinary record, and the
 * whole of a small version, in one call.
 */
export const FIRST_READ_BYTES = 16 * 1024;

/** What a version file's first bytes say of it. */
export type VersionFileHead =
  /** A format 2 file: its record, and where its payload starts. */
  | { readonly format: 2; readonly record: Buffer; readonly payloadOffset: number }
  /** A record written before format 2 (its payload is in `<v>.d`). */
  | { readonly format: 1 };

type RecordRequest = Parameters<typeof newVersionRecord>[0];

/**
 * Where the payload of a version of `request` starts: after the header and the widest record
 * the request can have (the largest version, size and time), so that the real one always fits.
 */
export function payloadOffsetFor(request: RecordRequest): number {
  const widest = newVersionRecord(
    request,
    { size: WIDEST_NUMBER, sha256: "0".repeat(DIGEST_CHARS) },
    WIDEST_NUMBER,
    WIDEST_NUMBER,
  );
  return HEADER_BYTES + Buffer.byteLength(sealRecord({ ...widest }));
}

/** The header and sealed record of `meta`, padded with spaces to `payloadOffset`. */
export function encodeHead(meta: ArtifactMeta, payloadOffset: number): Buffer {
  const record = Buffer.from(sealRecord({ ...meta }));
  const header = `${MAGIC} ${pad(record.byteLength)} ${pad(payloadOffset)}\n`;
  if (HEADER_BYTES + record.byteLength > payloadOffset) {
    // payloadOffsetFor bounds every record of the request: a longer one is a bug here.
    throw new Error("a version record is longer than the room left for it");
  }
  const head = Buffer.alloc(payloadOffset, " ");
  head.write(header, 0, "latin1");
  record.copy(head, HEADER_BYTES);
  return head;
}

/** What follows the payload: the block digests of a version of more than one block. */
export function encodeTail(digest: DataDigest): Buffer {
  return digest.blocks.length > 1
    ? Buffer.from(digest.sha256 + digest.blocks.join(""), "latin1")
    : Buffer.alloc(0);
}

/** Bytes of the tail a version of `size` bytes carries. */
function tailBytes(size: number): number {
  const blocks = blockCount(size);
  return blocks > 1 ? (blocks + 1) * DIGEST_CHARS : 0;
}

/** Bytes of a whole format 2 file holding `meta`. */
export function versionFileBytes(meta: Pick<ArtifactMeta, "size">, payloadOffset: number): number {
  return payloadOffset + meta.size + tailBytes(meta.size);
}

/**
 * Reads a version file's head from `first` (its first bytes, as read) and the open handle:
 * format 2, checked to hold a whole record within `maxRecordBytes`, or a record of the format
 * before (which the caller reads as a whole file).
 */
export async function readVersionHead(
  handle: ReadOnlyFile,
  first: Buffer,
  fileSize: number,
  maxRecordBytes: number,
  what: string,
  detail: ArtifactErrorDetail,
): Promise<VersionFileHead> {
  if (first.byteLength > 0 && first[0] === 0x7b /* "{" */) return { format: 1 };
  const header = HEADER.exec(first.subarray(0, HEADER_BYTES).toString("latin1"));
  if (!header) throw corruptArtifact(`${what} has no valid header`, detail);
  const recordBytes = Number(header[1]);
  const payloadOffset = Number(header[2]);
  if (recordBytes > maxRecordBytes) {
    throw corruptArtifact(`${what} holds a record larger than ${maxRecordBytes} bytes`, detail);
  }
  if (HEADER_BYTES + recordBytes > payloadOffset || payloadOffset > fileSize) {
    throw corruptArtifact(`${what} has an impossible header`, detail);
  }
  const end = HEADER_BYTES + recordBytes;
  let record: Buffer;
  if (end <= first.byteLength) {
    record = first.subarray(HEADER_BYTES, end);
  } else {
    record = Buffer.allocUnsafeSlow(recordBytes);
    const { bytesRead } = await handle.read(record, 0, recordBytes, HEADER_BYTES);
    if (bytesRead !== recordBytes)
      throw corruptArtifact(`${what} shrank while it was read`, detail);
  }
  return { format: 2, record, payloadOffset };
}

/** The block digests a format 2 file carries after its payload, as text. */
export async function readTail(
  handle: ReadOnlyFile,
  payloadOffset: number,
  size: number,
): Promise<string> {
  const bytes = tailBytes(size);
  if (bytes === 0) return "";
  const tail = Buffer.allocUnsafeSlow(bytes);
  const { bytesRead } = await handle.read(tail, 0, bytes, payloadOffset + size);
  return tail.subarray(0, bytesRead).toString("latin1");
}

function pad(value: number): string {
  return String(value).padStart(FIELD_DIGITS, "0");
}
