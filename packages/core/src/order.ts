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
  return search(sorted, (item) => compare(keyOf(item), cursor) <= 0);
}

/** Index of the first element of `sorted` at or after `key` (binary search). */
export function indexFrom<T, K>(
  sorted: readonly T[],
  key: K,
  keyOf: (item: T) => K,
  compare: (a: K, b: K) => number,
): number {
  return search(sorted, (item) => compare(keyOf(item), key) < 0);
}

/** The first index whose element is not `before` (which holds for a prefix of `sorted`). */
function search<T>(sorted: readonly T[], before: (item: T) => boolean): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (before(sorted[mid] as T)) low = mid + 1;
    else high = mid;
  }
  return low;
}

/**
 * Where a page of names starts: after the cursor, or at the prefix when there is no cursor or
 * the cursor sorts before the prefix (names with a prefix are one contiguous run in UTF-8
 * order). `inclusive` says whether a name equal to `from` belongs on the page.
 */
export function namePageStart(request: {
  cursor: string | undefined;
  prefix: string | undefined;
}): { from: string; inclusive: boolean } | undefined {
  const { cursor, prefix } = request;
  if (prefix !== undefined && (cursor === undefined || compareUtf8(cursor, prefix) < 0)) {
    return { from: prefix, inclusive: true };
  }
  return cursor === undefined ? undefined : { from: cursor, inclusive: false };
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

/**
 * A page of `sorted` names (UTF-8 order) for a listNames request: after its cursor, and only
 * names with its prefix, which form one contiguous run; for adapters that keep names in an
 * array.
 */
export function namePage(
  sorted: readonly string[],
  request: { cursor: string | undefined; limit: number; prefix: string | undefined },
): Page<string, string> {
  const start = namePageStart(request);
  const identity = (name: string) => name;
  let end =
    start === undefined
      ? 0
      : start.inclusive
        ? indexFrom(sorted, start.from, identity, compareUtf8)
        : indexAfter(sorted, start.from, identity, compareUtf8);
  const items: string[] = [];
  for (; end < sorted.length && items.length <= request.limit; end++) {
    const name = sorted[end] as string;
    if (request.prefix !== undefined && !name.startsWith(request.prefix)) break;
    items.push(name);
  }
  const more = items.length > request.limit;
  if (more) items.pop();
  const last = items[items.length - 1];
  return more && last !== undefined ? { items, nextCursor: last } : { items };
}

/**
 * The least string above every string that starts with `prefix`, in UTF-8 (code point)
 * order: the prefix with its last code point raised by one (skipping the surrogate range),
 * after dropping trailing U+10FFFF; undefined when nothing is above (all U+10FFFF). Lets an
 * ordered index stop at the end of a prefix's run: `prefix <= name < upper`.
 */
export function prefixUpperBound(prefix: string): string | undefined {
  const codePoints = [...prefix];
  while (codePoints.length > 0) {
    const last = (codePoints.pop() as string).codePointAt(0) as number;
    if (last === 0x10ffff) continue;
    const next = last === 0xd7ff ? 0xe000 : last + 1;
    return codePoints.join("") + String.fromCodePoint(next);
  }
  return undefined;
}
