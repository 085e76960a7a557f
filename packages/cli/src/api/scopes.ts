import {
  type ArtifactService,
  compareUtf8,
  invalidServiceReply,
  type Scope,
  unsupportedTransfer,
  validateScope,
} from "@artifact-kit/core";
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
// listScopes. A level the bound fixes is answered with the bound's own scope; each scope
// listed is shown only when the resource provider allows it.

interface ScopePageReply {
  items: readonly Scope[];
  nextCursor?: string;
}

type ScopeLister = (options: {
  kind: Scope["kind"];
  app?: string;
  user?: string;
  limit?: number;
  cursor?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
}) => Promise<ScopePageReply>;

function listerOf(service: ArtifactService): ScopeLister {
  const candidate = service as ArtifactService & { listScopes?: ScopeLister };
  if (typeof candidate.listScopes !== "function") {
    throw unsupportedTransfer("this store cannot list its scopes");
  }
  return candidate.listScopes.bind(service);
}

export async function listScopes(
  context: HandlerContext,
  route: ScopesRoute,
  { deadline, signal }: RequestBudget,
): Promise<unknown> {
  const { kind, app, user, limit, cursor } = route;
  const listing = boundListing(context.bound, { kind, ...defined({ app, user }) });
  let page: ScopePageReply;
  if (listing === "open") {
    const list = listerOf(context.service);
    page = await refuseForeignReplies(async () =>
      checkScopePage(
        await list({
          kind,
          ...defined({ app, user, limit, cursor }),
          ...deadline.toRequestOptions(),
        }),
        route,
      ),
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

/** Scopes of the kind and parent asked for, or the reply is refused (never shown as ours). */
function checkScopePage(reply: ScopePageReply, route: ScopesRoute): ScopePageReply {
  for (const item of reply.items) {
    const scope = validateScope(item);
    const sameParent =
      scope.kind === route.kind &&
      (route.kind === "app" || scope.app === route.app) &&
      (scope.kind !== "session" || scope.user === route.user);
    if (!sameParent) throw invalidServiceReply("listScopes answered another level or parent");
  }
  return reply;
}
