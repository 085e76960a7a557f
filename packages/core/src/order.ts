import { invalidArgument } from "./errors.js";
import { validatePositiveInteger } from "./validate.js";

// Code units from U+E000 to U+FFFF sort above surrogates in UTF-16 but below astral
// characters in UTF-8; shifting them (and the surrogates) restores UTF-8 byte order.
function utf8Rank(codeUnit: number): number {
  if (codeUnit < 0xd800) return codeUnit;
  return codeUnit >= 0xe000 ? codeUnit - 0x800 : codeUnit + 0x2000;
}

/** Compares well-formed strings in UTF-8 byte order (= code point order), not UTF-16 order. */
export function compareUtf8(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return utf8Rank(x) < utf8Rank(y) ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

export function compareNumbers(a: number, b: number): number {
  return a - b;
}

/** `limit` when given (a positive integer), capped at `maxPageLimit`; else `maxPageLimit`. */
export function resolvePageLimit(limit: unknown, maxPageLimit: number): number {
  if (limit === undefined) return maxPageLimit;
  return Math.min(validatePositiveInteger(limit, "limit"), maxPageLimit);
}

/** Index of the first element of `sorted` strictly after `cursor` (binary search). */
export function indexAfter<T, K>(
  sorted: readonly T[],
  cursor: K,
  keyOf: (item: T) => K,
  compare: (a: K, b: K) => number,
): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (compare(keyOf(sorted[mid] as T), cursor) <= 0) low = mid + 1;
    else high = mid;
  }
  return low;
}

export interface Page<T, K> {
  items: T[];
  nextCursor?: K;
}

/**
 * One page of a sorted array after an exclusive cursor, in O(log n + limit).
 * `nextCursor` is the key of the last item, present only when more items follow.
 */
export function pageAfter<T, K>(
  sorted: readonly T[],
  request: { cursor: K | undefined; limit: number },
  keyOf: (item: T) => K,
  compare: (a: K, b: K) => number,
): Page<T, K> {
  if (!Number.isSafeInteger(request.limit) || request.limit < 1) {
    throw invalidArgument("limit", "must be a positive integer");
  }
  const start =
    request.cursor === undefined ? 0 : indexAfter(sorted, request.cursor, keyOf, compare);
  const end = Math.min(sorted.length, start + request.limit);
  const items = sorted.slice(start, end);
  const last = items[items.length - 1];
  return end < sorted.length && last !== undefined ? { items, nextCursor: keyOf(last) } : { items };
}
