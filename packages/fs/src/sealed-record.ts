import { type ArtifactErrorDetail, corruptArtifact, sha256Hex } from "@artifact-kit/core";
import { FORMAT, parseFormatRecord } from "./records.js";

// Metadata records carry the SHA-256 of their own bytes, so that every read of one (head,
// listings, get, a key's replay, repair) finds a damaged or edited record, not only a get
// that hashes the data. The record is the JSON text of its body with a first member
// `"check":"<hex>"` spliced in before the body's own members: the checksum covers the body's
// exact bytes (no re-serialization to agree on) and the whole stays one JSON object of the
// store's format, which readers written before the checksum still read.

const CHECK_PREFIX = '{"check":"';
const CHECK_CHARS = 64;
/** `{"check":"<64 hex>",` then the body without its opening brace. */
const SEALED_HEAD = new RegExp(`^\\{"check":"([0-9a-f]{${CHECK_CHARS}})",`);

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The record of `body` (a JSON object of the store's format) with its checksum. */
export function sealRecord(body: Record<string, unknown>): string {
  const text = JSON.stringify({ format: FORMAT, ...body });
  // `{}` has no member to splice before; a record always has at least its format.
  return `${CHECK_PREFIX}${sha256Hex(text)}",${text.slice(1)}`;
}

/**
 * Parses a record of the store's format, checked against its checksum when it has one; a
 * record without one (written before checksums) is read as it is. Throws corrupt_artifact
 * when the bytes are not such a record or do not match their checksum.
 */
export function openSealedRecord(
  bytes: Buffer,
  what: string,
  detail: ArtifactErrorDetail,
): Record<string, unknown> {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch (error) {
    throw corruptArtifact(`${what} is not UTF-8 JSON`, detail, error);
  }
  const sealed = SEALED_HEAD.exec(text);
  if (sealed) {
    const body = `{${text.slice(sealed[0].length)}`;
    if (sha256Hex(body) !== sealed[1]) {
      throw corruptArtifact(`${what} does not match its checksum`, detail);
    }
  }
  const record = parseFormatRecord(bytes, what, detail);
  // A checksum anywhere else, or of another shape, is damage, not a record from before.
  if (!sealed && "check" in record) {
    throw corruptArtifact(`${what} has a malformed checksum`, detail);
  }
  return record;
}
