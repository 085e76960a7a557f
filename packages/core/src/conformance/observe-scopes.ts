import { isArtifactError } from "../errors.js";
import { checkScopePageReply } from "../reply.js";
import type { ScopeLevel } from "../request.js";
import { idAtLevel } from "../scope-listing.js";
import type { ArtifactService, ListScopesOptions, Scope, ScopePage } from "../types.js";
import { expectTrue, fail } from "./expect.js";

// Reading scope listings back completely, checking every page on the way: the kind, app and
// user asked for, the limit, UTF-8 order after the cursor, and a cursor only on a non-empty
// page that ends where it says.

/** Guards against an adapter whose cursors never end. */
const MAX_PAGES = 10_000;

/** The level a listScopes call with these options lists. */
export function levelOf(options: Pick<ListScopesOptions, "kind" | "app" | "user">): ScopeLevel {
  const { kind = "app", app = "", user = "" } = options;
  return kind === "app" ? { kind } : kind === "user" ? { kind, app } : { kind, app, user };
}

/** The ids of a page's scopes at the level listed. */
export function idsOf(level: ScopeLevel, page: ScopePage): string[] {
  return page.items.map((scope: Scope) => idAtLevel(level, scope) ?? "");
}

/** One page, checked against the request that asked for it. */
export async function scopePage(
  service: ArtifactService,
  options: ListScopesOptions,
): Promise<{ ids: string[]; nextCursor: string | undefined }> {
  const level = levelOf(options);
  const page = await service.listScopes(options);
  try {
    checkScopePageReply(page, options, service.capabilities().pagination.maxPageLimit);
  } catch (error) {
    fail(
      `listScopes(${JSON.stringify(options)}) returned ${JSON.stringify(page)}: ${
        isArtifactError(error) ? error.message : String(error)
      }`,
    );
  }
  return { ids: idsOf(level, page), nextCursor: page.nextCursor };
}

/** Every id of one level, page by page at `limit`, every page checked. */
export async function readAllScopeIds(
  service: ArtifactService,
  options: Omit<ListScopesOptions, "cursor" | "limit">,
  limit?: number,
): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < MAX_PAGES; pages++) {
    const page = await scopePage(service, {
      ...options,
      ...(limit === undefined ? {} : { limit }),
      ...(cursor === undefined ? {} : { cursor }),
    });
    ids.push(...page.ids);
    if (page.nextCursor === undefined) return ids;
    expectTrue(page.ids.length > 0, "listScopes returned an empty page with a nextCursor");
    cursor = page.nextCursor;
  }
  return fail(`listScopes(${JSON.stringify(options)}) did not end within ${MAX_PAGES} pages`);
}

/** The listed apps among `apps` (others' apps may be listed too; they are checked, not kept). */
export async function listedAmong(
  service: ArtifactService,
  apps: readonly string[],
  limit?: number,
): Promise<string[]> {
  const all = await readAllScopeIds(service, { kind: "app" }, limit);
  return all.filter((app) => apps.includes(app));
}
