import { decodeUtf8, sha256Hex } from "@artifact-kit/core";
import { decodeBase32Hex, encodeBase32Hex } from "./base32hex.js";

/**
 * Names longer than this many UTF-8 bytes get a truncated key. A multiple of 5, so the
 * encoded prefix ends on a byte boundary; sized so the longest key fits GCS's 1,024-byte
 * object-name limit next to the object prefix, the scope digest and a version.
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
    return decodeUtf8(bytes);
  } catch {
    return undefined;
  }
}

/**
 * The lowest key segment that can hold `name` or a name after it: its own key (a truncated
 * key's whole group, which is ordered client-side).
 */
export function keyStartFrom(name: string): string {
  return nameKey(name).group;
}

/**
 * What the key of every name starting with `prefix` starts with: base32hex encodes 5 bytes
 * as 8 characters, so only the whole 5-byte groups of the prefix (at most the bytes a full
 * key holds) fix the key's leading characters.
 */
export function keyPrefixOf(prefix: string): string {
  const bytes = encoder.encode(prefix);
  const whole = Math.min(bytes.byteLength - (bytes.byteLength % 5), FULL_KEY_MAX_NAME_BYTES);
  return encodeBase32Hex(bytes.subarray(0, whole));
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
