import { sha256Hex } from "./scope.js";

// Order-preserving object-name keys for artifact names, for adapters on object stores that
// list keys in byte order (GCS, S3): one listing request per page of names.

// RFC 4648 base32hex without padding. Its alphabet is in ASCII order and every character
// carries the next 5 bits, so comparing encodings as strings compares the bytes: a proper
// prefix of the input stays a prefix (or smaller), and the first differing bit decides.
const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUV";

export function encodeBase32Hex(bytes: Uint8Array): string {
  let out = "";
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += ALPHABET[(buffer >>> bits) & 31];
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) out += ALPHABET[(buffer << (5 - bits)) & 31];
  return out;
}

/** The bytes of a canonical encoding, or undefined when `text` is not one. */
export function decodeBase32Hex(text: string): Uint8Array | undefined {
  const bytes: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const char of text) {
    const value = ALPHABET.indexOf(char);
    if (value < 0) return undefined;
    buffer = (buffer << 5) | value;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((buffer >>> bits) & 255);
      buffer &= (1 << bits) - 1;
    }
  }
  const decoded = Uint8Array.from(bytes);
  return encodeBase32Hex(decoded) === text ? decoded : undefined;
}

/**
 * Names longer than this many UTF-8 bytes get a truncated key. A multiple of 5, so the
 * encoded prefix ends on a byte boundary; sized so the longest key fits the 1,024-byte
 * object-name limit of GCS and S3 next to a 256-byte prefix, a scope digest and a version.
 */
export const FULL_KEY_MAX_NAME_BYTES = 385;

/** Sorts above every base32hex character, so truncated keys follow every shorter name. */
const TRUNCATION_MARK = "~";

/**
 * The object-name segment that stands for an artifact name. Full keys are the base32hex of
 * the name's UTF-8, so key order is UTF-8 byte order. Longer names share the key `group`
 * with every long name of the same first FULL_KEY_MAX_NAME_BYTES bytes and are told apart
 * by a digest; within a group the order is settled client-side.
 */
export interface NameKey {
  readonly key: string;
  /** Keys of one group are adjacent in object order; a full key is its own group. */
  readonly group: string;
}

const encoder = new TextEncoder();
const strictDecoder = new TextDecoder("utf-8", { fatal: true });

export function nameKey(name: string): NameKey {
  const bytes = encoder.encode(name);
  if (bytes.byteLength <= FULL_KEY_MAX_NAME_BYTES) {
    const key = encodeBase32Hex(bytes);
    return { key, group: key };
  }
  const group = encodeBase32Hex(bytes.subarray(0, FULL_KEY_MAX_NAME_BYTES)) + TRUNCATION_MARK;
  return { key: group + sha256Hex(bytes), group };
}

export function groupOfKey(key: string): string {
  const mark = key.indexOf(TRUNCATION_MARK);
  return mark < 0 ? key : key.slice(0, mark + 1);
}

/** The name a full key stands for; undefined for truncated or malformed keys. */
export function nameOfFullKey(key: string): string | undefined {
  const bytes = decodeBase32Hex(key);
  if (!bytes || bytes.byteLength > FULL_KEY_MAX_NAME_BYTES) return undefined;
  try {
    return strictDecoder.decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * The lowest key segment that can hold a name after `cursor`. For a full key, "0" is the
 * character right after the "/" that ends the cursor's own objects; for a truncated key,
 * the whole group is listed again and filtered by name.
 */
export function keyStartAfter(cursor: string): string {
  const { key, group } = nameKey(cursor);
  return key === group ? `${key}0` : group;
}
