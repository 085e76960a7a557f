import {
  type ArtifactMeta,
  type NamePage,
  resultLimitExceeded,
  type Scope,
  type VersionPage,
} from "@artifact-kit/core";
import {
  namePageStart,
  type ParsedListNames,
  type ParsedListVersions,
  type ParsedRequest,
} from "@artifact-kit/core/adapter";
import { namePaths, type ScopePaths } from "./layout.js";
import type { NameOrder } from "./name-order.js";
import { readLiveMeta } from "./version-reads.js";
import { type VersionNumbers, walkVersions } from "./version-walk.js";

/**
 * Metadata files read, or name directories checked, at once: each is one or more file-system
 * calls on libuv's thread pool, so a page that made them one after another would wait for
 * all of them in turn.
 */
const READ_AHEAD = 32;

/** What the listings read: the ordered name index and each name's published versions. */
export interface LiveListing {
  scopeDirs(scope: Scope): ScopePaths;
  readonly names: NameOrder;
  /** Published versions of the name directory `dir`, ascending. */
  liveVersions(dir: string): Promise<readonly number[]>;
  /** The versions of the name directory `dir` by number, for a walk (version-walk.ts). */
  versionNumbers(dir: string): VersionNumbers;
}

/** One page of the names with a published version, from the ordered name index. */
export async function liveNamePage(
  listing: LiveListing,
  request: ParsedListNames,
): Promise<NamePage> {
  const scopeDirs = listing.scopeDirs(request.scope);
  const items: string[] = [];
  // Read a page at a time from the ordered name index (name-order.ts).
  const candidates = whilePrefixed(
    listing.names.names(scopeDirs, namePageStart(request)),
    request.prefix,
  );
  // Enough candidates to fill the page and see one live name beyond it, READ_AHEAD at most.
  const wanted = () => Math.min(READ_AHEAD, request.limit - items.length + 1);
  for await (const batch of inBatches(candidates, wanted)) {
    request.deadline.check();
    const live = await Promise.all(
      batch.map((candidate) => listing.liveVersions(namePaths(scopeDirs, candidate).dir)),
    );
    for (const [at, candidate] of batch.entries()) {
      if (live[at]?.length === 0) continue;
      // One live name beyond the page: only then is there a next page.
      if (items.length === request.limit) {
        return { scope: request.scope, items, nextCursor: items[items.length - 1] as string };
      }
      items.push(candidate);
    }
  }
  return { scope: request.scope, items };
}

/** Names with the prefix are one contiguous run in UTF-8 order: the first without it ends it. */
async function* whilePrefixed(
  names: AsyncIterable<string>,
  prefix: string | undefined,
): AsyncGenerator<string> {
  for await (const name of names) {
    if (prefix !== undefined && !name.startsWith(prefix)) return;
    yield name;
  }
}

/** `source` in batches, each as long as `size()` says when it starts (the last may be short). */
async function* inBatches<T>(source: AsyncIterable<T>, size: () => number): AsyncGenerator<T[]> {
  let batch: T[] = [];
  for await (const item of source) {
    batch.push(item);
    if (batch.length >= size()) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/**
 * One page of a name's published versions, whose directory is `dir`: read by version number
 * from the cursor, so a page costs the same however many versions the name has.
 */
export async function liveVersionPage(
  listing: LiveListing,
  request: ParsedListVersions,
  dir: string,
): Promise<VersionPage> {
  const items: ArtifactMeta[] = [];
  let more = false;
  await walkVersions(listing.versionNumbers(dir), {
    direction: "up",
    ...(request.cursor === undefined ? {} : { from: request.cursor }),
    // Enough to fill the page and see one version beyond it, READ_AHEAD at most.
    batchSize: () => Math.min(READ_AHEAD, request.limit - items.length + 1),
    read: (versions) => readMetas(request.scope, request.name, dir, versions),
    take: (meta) => {
      // One version beyond the page: only then is there a next page.
      more = items.length === request.limit;
      if (!more) items.push(meta);
      return more;
    },
    check: () => request.deadline.check(),
  });
  return more
    ? { items, nextCursor: (items[items.length - 1] as ArtifactMeta).version }
    : { items };
}

/**
 * The metadata of `versions` of one name, read concurrently, in the same order; undefined for
 * a version not (or no longer) published.
 */
function readMetas(
  scope: Scope,
  name: string,
  dir: string,
  versions: readonly number[],
): Promise<(ArtifactMeta | undefined)[]> {
  return Promise.all(versions.map((version) => readLiveMeta({ scope, name, dir, version })));
}

/** Every published version of a scope, or result_limit_exceeded past `legacyListLimit`. */
export async function liveVersionsOfScope(
  listing: LiveListing,
  request: ParsedRequest,
  legacyListLimit: number,
): Promise<ArtifactMeta[]> {
  const scopeDirs = listing.scopeDirs(request.scope);
  const live: [string, string, readonly number[]][] = [];
  let total = 0;
  for await (const name of listing.names.names(scopeDirs, undefined)) {
    request.deadline.check();
    const dir = namePaths(scopeDirs, name).dir;
    const versions = await listing.liveVersions(dir);
    total += versions.length;
    if (total > legacyListLimit) throw resultLimitExceeded("legacyListLimit", legacyListLimit);
    if (versions.length > 0) live.push([name, dir, versions]);
  }
  const result: ArtifactMeta[] = [];
  for (const [name, dir, versions] of live) {
    for (let at = 0; at < versions.length; at += READ_AHEAD) {
      const batch = versions.slice(at, at + READ_AHEAD);
      for (const meta of await readMetas(request.scope, name, dir, batch)) {
        if (meta) result.push(meta);
      }
    }
  }
  return result;
}
