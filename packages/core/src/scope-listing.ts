import { compareUtf8 } from "./order.js";
import type { ParsedListNames, ParsedListScopes, ScopeLevel } from "./request.js";
import type { NamePage, Scope, ScopePage } from "./types.js";

// Scope discovery for adapters that know every scope they have stored (a slot, a marker, a
// row) and can tell whether one holds a live version. A level's id is listed when any scope
// at or below it is live, so liveness is asked of the stored scopes, grouped by that id.

/** The scope of `level`'s kind with `id` as its last id, under the level's app and user. */
export function scopeAtLevel(level: ScopeLevel, id: string): Scope {
  switch (level.kind) {
    case "app":
      return Object.freeze({ kind: "app", app: id });
    case "user":
      return Object.freeze({ kind: "user", app: level.app, user: id });
    case "session":
      return Object.freeze({ kind: "session", app: level.app, user: level.user, session: id });
  }
}

/**
 * The id at `level` that `scope` counts for (its own last id, or its ancestor's at that
 * level), or undefined when `scope` is not under the level's app and user.
 */
export function idAtLevel(level: ScopeLevel, scope: Scope): string | undefined {
  switch (level.kind) {
    case "app":
      return scope.app;
    case "user":
      return scope.kind !== "app" && scope.app === level.app ? scope.user : undefined;
    case "session":
      return scope.kind === "session" && scope.app === level.app && scope.user === level.user
        ? scope.session
        : undefined;
  }
}

/** Liveness checks in flight at once: a remote store answers each with a round trip. */
const CHECKS_IN_FLIGHT = 16;

/**
 * One page of the level's live scopes, from every stored scope the adapter knows of (live or
 * emptied, in any order, duplicates allowed) and a test of whether one holds a live version.
 * Only the ids after the cursor are tested, in UTF-8 order, until the page is full.
 */
export async function pageLiveScopes(
  known: Iterable<Scope>,
  request: ParsedListScopes,
  isLive: (scope: Scope) => boolean | Promise<boolean>,
): Promise<ScopePage> {
  const { level, cursor, limit, deadline } = request;
  const groups = new Map<string, Scope[]>();
  for (const scope of known) {
    const id = idAtLevel(level, scope);
    if (id === undefined || (cursor !== undefined && compareUtf8(id, cursor) <= 0)) continue;
    const group = groups.get(id);
    if (group) group.push(scope);
    else groups.set(id, [scope]);
  }
  const ids = [...groups.keys()].sort(compareUtf8);
  const anyLive = async (id: string) => {
    for (const scope of groups.get(id) ?? []) if (await isLive(scope)) return true;
    return false;
  };
  const found: string[] = [];
  // One more than the page: whether it exists decides nextCursor.
  for (let at = 0; at < ids.length && found.length <= limit; ) {
    deadline.check();
    const batch = ids.slice(at, at + Math.min(CHECKS_IN_FLIGHT, limit + 1 - found.length));
    at += batch.length;
    const live = await Promise.all(batch.map(anyLive));
    batch.forEach((id, index) => {
      if (live[index]) found.push(id);
    });
  }
  return scopePageOf(level, found, limit);
}

/**
 * pageLiveScopes where a scope is live when a listNames page of one finds a name: `names` is
 * the adapter's own listNames hook, asked under the listing's deadline.
 */
export function pageScopesWithNames(
  known: Iterable<Scope>,
  request: ParsedListScopes,
  names: (request: ParsedListNames) => NamePage | Promise<NamePage>,
): Promise<ScopePage> {
  const { deadline } = request;
  return pageLiveScopes(known, request, async (scope) => {
    const page = await names({ scope, limit: 1, cursor: undefined, prefix: undefined, deadline });
    return page.items.length > 0;
  });
}

/**
 * The page of `ids` (live, ascending, after the cursor, at most limit + 1 of them): the
 * first `limit` as scopes, with a cursor when one more was found.
 */
export function scopePageOf(level: ScopeLevel, ids: readonly string[], limit: number): ScopePage {
  const items = ids.slice(0, limit).map((id) => scopeAtLevel(level, id));
  const last = ids[limit - 1];
  return Object.freeze(
    ids.length > limit && last !== undefined
      ? { items: Object.freeze(items), nextCursor: last }
      : { items: Object.freeze(items) },
  );
}
