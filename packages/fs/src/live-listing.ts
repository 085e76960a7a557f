import {
  type ArtifactMeta,
  type NamePage,
  resultLimitExceeded,
  type Scope,
  type VersionPage,
} from "@artifact-kit/core";
import {
  compareNumbers,
  indexAfter,
  namePageStart,
  type ParsedListNames,
  type ParsedListVersions,
  type ParsedRequest,
} from "@artifact-kit/core/adapter";
import { namePaths, type ScopePaths } from "./layout.js";
import type { NameOrder } from "./name-order.js";
import { readMeta } from "./version-files.js";

/** What the listings read: the ordered name index and each name's published versions. */
export interface LiveListing {
  scopeDirs(scope: Scope): ScopePaths;
  readonly names: NameOrder;
  /** Published versions of the name directory `dir`, ascending. */
  liveVersions(dir: string): Promise<readonly number[]>;
}

/** One page of the names with a published version, from the ordered name index. */
export async function liveNamePage(
  listing: LiveListing,
  request: ParsedListNames,
): Promise<NamePage> {
  const scopeDirs = listing.scopeDirs(request.scope);
  const items: string[] = [];
  // Read a page at a time from the ordered name index (name-order.ts).
  for await (const candidate of listing.names.names(scopeDirs, namePageStart(request))) {
    // Names with the prefix are one contiguous run in UTF-8 order.
    if (request.prefix !== undefined && !candidate.startsWith(request.prefix)) break;
    request.deadline.check();
    const live = await listing.liveVersions(namePaths(scopeDirs, candidate).dir);
    if (live.length === 0) continue;
    // One live name beyond the page: only then is there a next page.
    if (items.length === request.limit) {
      return { scope: request.scope, items, nextCursor: items[items.length - 1] as string };
    }
    items.push(candidate);
  }
  return { scope: request.scope, items };
}

/** One page of a name's published versions, whose directory is `dir`. */
export async function liveVersionPage(
  listing: LiveListing,
  request: ParsedListVersions,
  dir: string,
): Promise<VersionPage> {
  const versions = await listing.liveVersions(dir);
  let next =
    request.cursor === undefined
      ? 0
      : indexAfter(versions, request.cursor, (item) => item, compareNumbers);
  const items: ArtifactMeta[] = [];
  while (items.length < request.limit && next < versions.length) {
    request.deadline.check();
    const batch = versions.slice(next, next + Math.min(request.limit - items.length, READ_AHEAD));
    next += batch.length;
    // A version deleted since the listing reads as undefined and is skipped.
    for (const meta of await readMetas(request.scope, request.name, dir, batch)) {
      if (meta) items.push(meta);
    }
  }
  // One version beyond the page: only then is there a next page.
  return items.length === request.limit && next < versions.length
    ? { items, nextCursor: (items[items.length - 1] as ArtifactMeta).version }
    : { items };
}

/**
 * Metadata files read at once: each read is several file-system calls on libuv's thread
 * pool, so a page read one file after another waits for all of them in turn.
 */
const READ_AHEAD = 32;

/** The metadata of `versions` of one name, read concurrently, in the same order. */
function readMetas(
  scope: Scope,
  name: string,
  dir: string,
  versions: readonly number[],
): Promise<(ArtifactMeta | undefined)[]> {
  return Promise.all(versions.map((version) => readMeta({ scope, name, dir, version })));
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
