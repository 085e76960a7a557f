/**
 * The version ranges that record chunks cover: [first, first + span), aligned so that every
 * version falls in exactly one range of each span (first = k * span + 1, versions start at 1).
 * Two spans: a page of 100 in a name's settled history reads one or two chunks of 100, and
 * the recent end of a name (a range of 100 still being written) reads chunks of 10, so only
 * the last few versions of a name are read one manifest at a time.
 */
export const CHUNK_SPANS = [100, 10] as const;

export interface VersionRange {
  readonly first: number;
  readonly span: number;
}

/** The range of `span` that holds `version`. */
export function rangeOf(version: number, span: number): VersionRange {
  return { first: Math.floor((version - 1) / span) * span + 1, span };
}

export function lastOf(range: VersionRange): number {
  return range.first + range.span - 1;
}

export function inRange(range: VersionRange, version: number): boolean {
  return version >= range.first && version <= lastOf(range);
}

/** Whether a range is one that chunks cover (a known span, aligned). */
export function isChunkRange(range: VersionRange): boolean {
  return (
    (CHUNK_SPANS as readonly number[]).includes(range.span) &&
    range.first >= 1 &&
    (range.first - 1) % range.span === 0 &&
    Number.isSafeInteger(lastOf(range))
  );
}

export function sameRange(a: VersionRange, b: VersionRange): boolean {
  return a.first === b.first && a.span === b.span;
}
