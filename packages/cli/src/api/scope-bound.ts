import { capabilityDenied, type Scope, type ScopeKind } from "@artifact-kit/core";

// `serve --scope`: the one part of the store a token may see. A request for a scope inside
// the bound goes on; one outside is refused like a scope the resource provider forbids. The
// bound's ancestors (its app, its user) are listed so the console can walk down to it, but
// their own artifacts stay out of reach.

const LEVELS: readonly ScopeKind[] = ["app", "user", "session"];

function idsOf(scope: Scope): string[] {
  switch (scope.kind) {
    case "app":
      return [scope.app];
    case "user":
      return [scope.app, scope.user];
    case "session":
      return [scope.app, scope.user, scope.session];
  }
}

/** True when `scope` is the bound or lies under it (no bound: every scope). */
export function isWithinBound(bound: Scope | undefined, scope: Scope): boolean {
  if (bound === undefined) return true;
  const mine = idsOf(scope);
  return idsOf(bound).every((id, level) => mine[level] === id);
}

export function checkWithinBound(bound: Scope | undefined, scope: Scope): void {
  if (!isWithinBound(bound, scope)) {
    throw capabilityDenied("this scope is outside what this server serves", {
      reason: "forbidden",
    });
  }
}

export interface ScopeListing {
  kind: ScopeKind;
  app?: string;
  user?: string;
}

/**
 * How a listing of one level meets the bound: `fixed` when the bound names this level's id
 * (the answer is that one scope), `open` when the level lies under the bound (the store is
 * asked), and a refusal when the listing's parent is outside the bound.
 */
export function boundListing(
  bound: Scope | undefined,
  listing: ScopeListing,
): { fixed: Scope } | "open" {
  if (bound === undefined) return "open";
  const parents = [listing.app, listing.user].slice(0, LEVELS.indexOf(listing.kind));
  const boundIds = idsOf(bound);
  parents.forEach((id, level) => {
    if (level < boundIds.length && boundIds[level] !== id) {
      throw capabilityDenied("this scope is outside what this server serves", {
        reason: "forbidden",
      });
    }
  });
  const level = LEVELS.indexOf(listing.kind);
  if (level >= boundIds.length) return "open";
  const [app = "", user = "", session = ""] = boundIds;
  const fixed: Scope =
    listing.kind === "app"
      ? { kind: "app", app }
      : listing.kind === "user"
        ? { kind: "user", app, user }
        : { kind: "session", app, user, session };
  return { fixed };
}
