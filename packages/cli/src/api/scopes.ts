import { compareUtf8, type Scope, type ScopePage } from "@artifact-kit/core";
import {
  defined,
  type HandlerContext,
  isAllowed,
  type RequestBudget,
  refuseForeignReplies,
} from "./handlers.js";
import type { ScopesRoute } from "./route.js";
import { boundListing } from "./scope-bound.js";

// GET /v1/scopes: the scopes that hold artifacts, one level at a time, through the store's
// listScopes (its pages checked by pages.ts). A level the bound fixes is answered with the
// bound's own scope; each scope listed is shown only when the resource provider allows it.

export async function listScopes(
  context: HandlerContext,
  route: ScopesRoute,
  { deadline, signal }: RequestBudget,
): Promise<unknown> {
  const { kind, app, user, limit, cursor } = route;
  const listing = boundListing(context.bound, { kind, ...defined({ app, user }) });
  let page: ScopePage;
  if (listing === "open") {
    page = await refuseForeignReplies(() =>
      context.service.listScopes({
        kind,
        ...defined({ app, user, limit, cursor }),
        ...deadline.toRequestOptions(),
      }),
    );
  } else {
    const id = lastId(listing.fixed);
    page = { items: cursor !== undefined && compareUtf8(cursor, id) >= 0 ? [] : [listing.fixed] };
  }
  const items: Scope[] = [];
  for (const scope of page.items) {
    if (await isAllowed(context, scope, "listScopes", signal)) items.push(scope);
  }
  return { kind, items, ...defined({ nextCursor: page.nextCursor }) };
}

function lastId(scope: Scope): string {
  return scope.kind === "app" ? scope.app : scope.kind === "user" ? scope.user : scope.session;
}
