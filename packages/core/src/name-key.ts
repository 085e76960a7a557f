import { corruptArtifact } from "./errors.js";
import { compareUtf8, namePageStart } from "./order.js";
import { sha256Hex } from "./scope.js";
import type { NamePage, Scope } from "./types.js";
import { decodeUtf8 } from "./validate.js";

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
 * The lowest key segment that can hold a name after `cursor`. For a full key, "0" is the
 * character right after the "/" that ends the cursor's own objects; for a truncated key,
 * the whole group is listed again and filtered by name.
 */
export function keyStartAfter(cursor: string): string {
  const { key, group } = nameKey(cursor);
  return key === group ? `${key}0` : group;
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

/** One listing request of an object store, over name keys: the keys from `from` on. */
export interface KeyListingRequest {
  /** Only keys that start with this (the whole 5-byte groups of a name prefix), or "". */
  readonly keyPrefix: string;
  /**
   * The first key the listing may return: for GCS `startOffset`, for S3 `StartAfter` (a key
   * segment is never itself an object name, so the two mean the same here); or undefined.
   */
  readonly from: string | undefined;
  /** How many keys are wanted; the store may return fewer per request. */
  readonly wanted: number;
  readonly pageToken: string | undefined;
}

/** One page of distinct name keys, in key order, and the store's token for the next. */
export interface KeyListingPage {
  readonly keys: readonly string[];
  readonly pageToken?: string;
}

/**
 * One page of names of an object store with order-preserving name keys (GCS, S3): a
 * delimiter listing of the keys from the page's start (after the cursor, or at the prefix's
 * key), read past the page by one group so that truncated-key groups, ordered client-side,
 * are read whole; the run of names with a prefix ends at the first full key past it without
 * it. One listing request per page in the usual case.
 */
export async function namePageOfKeys(
  request: {
    scope: Scope;
    limit: number;
    cursor: string | undefined;
    prefix: string | undefined;
  },
  list: (listing: KeyListingRequest) => Promise<KeyListingPage>,
  nameOfTruncatedKey: (key: string) => Promise<string | undefined>,
): Promise<NamePage> {
  const start = namePageStart(request);
  const from =
    start === undefined
      ? undefined
      : start.inclusive
        ? keyStartFrom(start.from)
        : keyStartAfter(start.from);
  const keyPrefix = request.prefix === undefined ? "" : keyPrefixOf(request.prefix);
  const wanted = request.limit + 1;
  const names: string[] = [];
  let lastGroup: string | undefined;
  let pageToken: string | undefined;
  let filled = false;
  do {
    const page = await list({ keyPrefix, from, wanted, pageToken });
    for (const key of page.keys) {
      const group = groupOfKey(key);
      if (names.length >= wanted && group !== lastGroup) {
        filled = true;
        break;
      }
      lastGroup = group;
      const name = group === key ? fullKeyName(key) : await nameOfTruncatedKey(key);
      if (name === undefined) continue;
      if (request.cursor !== undefined && compareUtf8(name, request.cursor) <= 0) continue;
      if (request.prefix !== undefined && !name.startsWith(request.prefix)) {
        if (group === key && compareUtf8(name, request.prefix) > 0) {
          filled = true;
          break;
        }
        continue;
      }
      names.push(name);
    }
    pageToken = page.pageToken;
  } while (!filled && pageToken);
  names.sort(compareUtf8);
  const items = names.slice(0, request.limit);
  const last = items[items.length - 1];
  return names.length > items.length && last !== undefined
    ? { scope: request.scope, items, nextCursor: last }
    : { scope: request.scope, items };
}

function fullKeyName(key: string): string {
  const name = nameOfFullKey(key);
  if (name === undefined) throw corruptArtifact(`unexpected name key ${key}`);
  return name;
}
