import fc from "fast-check";
import type { ArtifactService, Scope } from "../types.js";
import { expectArtifactError, expectEqual, expectTrue } from "./expect.js";
import { byUtf8Bytes } from "./model.js";
import { readAllNames, readAllVersions } from "./observe.js";

// What the scale laws share: names for a scope of more than a thousand of them, page sizes
// sampled over the whole range 1..maxPageLimit (always with the edges adapters chunk at), and
// listings read back completely at each of them.

/** More names than the 256- and 1,024-item chunks adapters split at, with room to spare. */
export const SCALE_COUNT = { min: 1_100, max: 1_200 } as const;

/**
 * Most pages one full listing may take: smaller page sizes are read in windows across the
 * 256th and 1,024th items instead, so a durable adapter's scale laws stay within seconds.
 */
const MAX_PAGES_PER_LISTING = 120;

/** Where windowed listings start (0-based positions) and how many items each reads. */
const WINDOWS = [250, 1_018] as const;
const WINDOW_ITEMS = 12;

/**
 * Name shapes whose UTF-8 order differs from insertion, numeric and UTF-16 order: ASCII,
 * digits only, shared directories, two- and three-byte characters, astral characters.
 */
const SHAPES: readonly ((i: number) => string)[] = [
  (i) => `n${i}`,
  (i) => `dir${i % 7}/f${i}`,
  (i) => `é/${i}`,
  (i) => `😀${i}`,
  (i) => `ｚ${i}`,
  (i) => `${i}`,
  (i) => `A${i}`,
  (i) => `a b/${i}`,
];

/** The prefixes the scale laws list by: one shared by a seventh of the names, one by none. */
export const SCALE_PREFIXES: readonly string[] = ["dir3/", "é/", "dir9/"];

/** `count` distinct names; `salt` shifts which shape each index gets. */
export function scaleNames(count: number, salt: number): string[] {
  return Array.from({ length: count }, (_, i) =>
    (SHAPES[(i + salt) % SHAPES.length] as (i: number) => string)(i),
  );
}

/** A permutation of `items` from `salt` (a small LCG: cheap, and replayed by the salt alone). */
export function shuffled<T>(items: readonly T[], salt: number): T[] {
  const out = [...items];
  let state = (salt >>> 0) + 1;
  for (let i = out.length - 1; i > 0; i--) {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/** Page sizes to list at: 1, the 256 and 1,024 edges +/- 1 and maxPageLimit, plus `sampled`. */
export function pageSizes(maxPageLimit: number, sampled: readonly number[]): number[] {
  const edges = [1, 2, 255, 256, 257, 1023, 1024, 1025, maxPageLimit - 1, maxPageLimit];
  return [...new Set([...edges, ...sampled])]
    .filter((size) => size >= 1 && size <= maxPageLimit)
    .sort((a, b) => a - b);
}

/** Page sizes sampled from the whole range 1..maxPageLimit. */
export const sampledSizesArb = (maxPageLimit: number) =>
  fc.array(fc.integer({ min: 1, max: maxPageLimit }), { minLength: 2, maxLength: 4 });

/** A listing at `size`: whole when it takes few pages, else windows across the edges. */
function plan(total: number, size: number): "whole" | readonly number[] {
  return Math.ceil(total / size) <= MAX_PAGES_PER_LISTING
    ? "whole"
    : WINDOWS.filter((start) => start < total);
}

/** Every live name, at every page size and under each prefix, complete and in UTF-8 order. */
export async function expectNamesAtEverySize(
  service: ArtifactService,
  scope: Scope,
  live: readonly string[],
  sizes: readonly number[],
  what: string,
): Promise<void> {
  const expected = [...live].sort(byUtf8Bytes);
  for (const size of sizes) {
    const how = plan(expected.length, size);
    if (how === "whole") {
      expectEqual(
        await readAllNames(service, scope, size),
        expected,
        `${what}: listNames at limit ${size} (${expected.length} names)`,
      );
      continue;
    }
    for (const start of how) {
      let cursor = start === 0 ? undefined : expected[start - 1];
      const read: string[] = [];
      while (read.length < WINDOW_ITEMS) {
        const page = await service.listNames(scope, {
          limit: size,
          ...(cursor === undefined ? {} : { cursor }),
        });
        read.push(...page.items);
        if (page.nextCursor === undefined) break;
        cursor = page.nextCursor;
      }
      expectEqual(
        read,
        expected.slice(start, start + read.length),
        `${what}: pages of ${size} from the name at position ${start}`,
      );
      expectTrue(
        read.length >= Math.min(WINDOW_ITEMS, expected.length - start),
        `${what}: pages of ${size} from position ${start} ended after ${read.length} names`,
      );
    }
  }
  const size = sizes.find((one) => plan(expected.length, one) === "whole") ?? sizes.at(-1) ?? 1;
  for (const prefix of SCALE_PREFIXES) {
    expectEqual(
      await readAllNames(service, scope, size, prefix),
      expected.filter((name) => name.startsWith(prefix)),
      `${what}: listNames with prefix ${JSON.stringify(prefix)} at limit ${size}`,
    );
  }
  expectDefaultPage(service, await service.listNames(scope), expected, `${what}: listNames`);
}

/**
 * A page asked for with no limit holds maxPageLimit items, or every item when fewer are live
 * ("limit defaults to maxPageLimit"): at a scale past a few hundred items, where a default
 * hard-coded below a large maxPageLimit (100, 256, 1,000) shows. The bounded subject's small
 * maxPageLimit hides one: the default there is the bound whatever the code says.
 */
export function expectDefaultPage<T>(
  service: ArtifactService,
  page: { readonly items: readonly T[]; readonly nextCursor?: unknown },
  live: readonly T[],
  what: string,
): void {
  const { maxPageLimit } = service.capabilities().pagination;
  expectEqual(
    [...page.items],
    live.slice(0, maxPageLimit),
    `${what}: the first page with no limit (maxPageLimit ${maxPageLimit}, ${live.length} live)`,
  );
  expectEqual(
    page.nextCursor !== undefined,
    live.length > maxPageLimit,
    `${what}: whether the first page with no limit has a nextCursor`,
  );
}

/** One page after `cursor` (live, deleted or never there) holds the next names, exclusively. */
export async function expectPageAfter(
  service: ArtifactService,
  scope: Scope,
  live: readonly string[],
  cursor: string,
  limit: number,
  what: string,
): Promise<void> {
  const after = [...live].sort(byUtf8Bytes).filter((name) => byUtf8Bytes(name, cursor) > 0);
  const page = await service.listNames(scope, { limit, cursor });
  expectEqual(
    [...page.items],
    after.slice(0, limit),
    `${what}: the page of ${limit} after cursor ${JSON.stringify(cursor)}`,
  );
  expectEqual(
    page.nextCursor,
    after.length > limit ? page.items.at(-1) : undefined,
    `${what}: nextCursor of the page after ${JSON.stringify(cursor)}`,
  );
}

/** Every live version of `name`, at every page size, ascending and complete. */
export async function expectVersionsAtEverySize(
  service: ArtifactService,
  scope: Scope,
  name: string,
  live: readonly number[],
  sizes: readonly number[],
  what: string,
): Promise<void> {
  for (const size of sizes) {
    const how = plan(live.length, size);
    if (how === "whole") {
      const versions = await readAllVersions(service, scope, name, size);
      expectEqual(
        versions.map((meta) => meta.version),
        live,
        `${what}: listVersions at limit ${size} (${live.length} versions)`,
      );
      continue;
    }
    for (const start of how) {
      let cursor = start === 0 ? undefined : live[start - 1];
      const read: number[] = [];
      while (read.length < WINDOW_ITEMS) {
        const page = await service.listVersions(scope, name, {
          limit: size,
          ...(cursor === undefined ? {} : { cursor }),
        });
        read.push(...page.items.map((meta) => meta.version));
        if (page.nextCursor === undefined) break;
        cursor = page.nextCursor;
      }
      expectEqual(
        read,
        live.slice(start, start + read.length),
        `${what}: version pages of ${size} from position ${start}`,
      );
      expectTrue(
        read.length >= Math.min(WINDOW_ITEMS, live.length - start),
        `${what}: version pages of ${size} from position ${start} ended after ${read.length}`,
      );
    }
  }
  const first = await service.listVersions(scope, name);
  expectDefaultPage(
    service,
    { items: first.items.map((meta) => meta.version), nextCursor: first.nextCursor },
    live,
    `${what}: listVersions`,
  );
}

/** The legacy list: every live version by name then version, or result_limit_exceeded. */
export async function expectLegacyList(
  service: ArtifactService,
  scope: Scope,
  expected: readonly [name: string, version: number][],
  what: string,
): Promise<void> {
  const { legacyListLimit } = service.capabilities().pagination;
  if (expected.length > legacyListLimit) {
    const error = await expectArtifactError(
      () => service.list(scope),
      "result_limit_exceeded",
      `${what}: list() of ${expected.length} versions over legacyListLimit ${legacyListLimit}`,
    );
    expectEqual(
      (error as { detail: { limit?: unknown } }).detail.limit,
      "legacy_list_limit",
      `${what}: detail.limit of result_limit_exceeded`,
    );
    return;
  }
  const records = await service.list(scope);
  expectTrue(Array.isArray(records), `${what}: list() returned no array`);
  expectEqual(
    records.map((meta) => [meta.name, meta.version]),
    expected,
    `${what}: list() of ${expected.length} versions`,
  );
}

/** How many more live versions the declared bounds leave room for in one scope (and name). */
export function roomInOneScope(service: ArtifactService, oneName: boolean): number {
  const bounds = service.capabilities().quotas.bounds;
  const caps = [bounds.maxScopeArtifacts, bounds.maxTotalArtifacts];
  caps.push(oneName ? bounds.maxVersionsPerName : bounds.maxNamesPerScope);
  return Math.min(...caps.map((cap) => cap ?? Number.POSITIVE_INFINITY));
}

/** Puts in flight at once when filling: a durable adapter's syncs overlap instead of queueing. */
const FILL_CONCURRENCY = 32;
/** Puts into one name at once. */
export const ONE_NAME_CONCURRENCY = 4;

/**
 * Runs `put` for every item, `concurrency` at a time, and returns the results in order. Puts
 * into one name race for its next version: they go a few at a time (a store that allocates by
 * compare-and-swap retries each race).
 */
export async function fill<T, R>(
  items: readonly T[],
  put: (item: T, i: number) => Promise<R>,
  concurrency = FILL_CONCURRENCY,
) {
  const results: R[] = [];
  for (let at = 0; at < items.length; at += concurrency) {
    const batch = items.slice(at, at + concurrency);
    results.push(...(await Promise.all(batch.map((item, i) => put(item, at + i)))));
  }
  return results;
}
