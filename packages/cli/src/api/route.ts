import {
  ArtifactError,
  invalidArgument,
  notFound,
  type Scope,
  validateName,
  validateScope,
} from "@artifact-kit/core";
import { parseCount } from "../parse-count.js";

// The API's paths, each id one percent-encoded segment (a "/" in an id is %2F):
//   GET    /v1/apps/A[/users/U[/sessions/S]]/names?limit&cursor
//   GET    /v1/apps/A[/users/U[/sessions/S]]/names/NAME/versions?limit&cursor
//   GET    /v1/apps/A[/users/U[/sessions/S]]            counts and a confirmation token
//   DELETE /v1/apps/A[/users/U[/sessions/S]]            body {"confirm": <that token>}
// Segments are split before decoding and never normalized: a raw "." or ".." is refused,
// and a decoded id is only ever an id, validated by core like any other.

export type ApiRoute =
  | { operation: "listNames"; scope: Scope; limit?: number; cursor?: string }
  | { operation: "listVersions"; scope: Scope; name: string; limit?: number; cursor?: number }
  | { operation: "inspectScope"; scope: Scope }
  | { operation: "deleteScope"; scope: Scope };

export function parseRoute(method: string, url: string): ApiRoute {
  const queryAt = url.indexOf("?");
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  const query = new URLSearchParams(queryAt === -1 ? "" : url.slice(queryAt + 1));
  const raw = path.split("/");
  if (raw.shift() !== "" || raw.some((segment) => segment === "." || segment === "..")) {
    throw invalidArgument("path", "must be absolute, without dot segments");
  }
  const segments = raw.map(decodeSegment);
  if (segments.shift() !== "v1" || segments.shift() !== "apps") throw routeNotFound();
  const [app, ...afterApp] = segments;
  if (app === undefined) throw routeNotFound();
  let scope: Scope = validateScope({ kind: "app", app });
  let rest: readonly string[] = afterApp;
  if (rest[0] === "users") {
    const user = rest[1];
    if (user === undefined) throw routeNotFound();
    scope = validateScope({ kind: "user", app, user });
    rest = rest.slice(2);
    if (rest[0] === "sessions") {
      const session = rest[1];
      if (session === undefined) throw routeNotFound();
      scope = validateScope({ kind: "session", app, user, session });
      rest = rest.slice(2);
    }
  }
  return routeWithin(scope, rest, method, query);
}

function routeWithin(
  scope: Scope,
  rest: readonly string[],
  method: string,
  query: URLSearchParams,
): ApiRoute {
  if (rest.length === 0) {
    expectMethod(method, ["GET", "DELETE"]);
    expectQuery(query, []);
    return { operation: method === "GET" ? "inspectScope" : "deleteScope", scope };
  }
  if (rest[0] !== "names") throw routeNotFound();
  if (rest.length === 1) {
    expectMethod(method, ["GET"]);
    const { limit, cursor } = pageQuery(query);
    return {
      operation: "listNames",
      scope,
      ...(limit === undefined ? {} : { limit: parseCount(limit, "limit") }),
      ...(cursor === undefined ? {} : { cursor: validateName(cursor, "cursor") }),
    };
  }
  if (rest.length === 3 && rest[2] === "versions") {
    expectMethod(method, ["GET"]);
    const { limit, cursor } = pageQuery(query);
    return {
      operation: "listVersions",
      scope,
      name: validateName(rest[1]),
      ...(limit === undefined ? {} : { limit: parseCount(limit, "limit") }),
      ...(cursor === undefined ? {} : { cursor: parseCount(cursor, "cursor") }),
    };
  }
  throw routeNotFound();
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw invalidArgument("path", "has a malformed percent-encoding");
  }
}

function pageQuery(query: URLSearchParams): { limit?: string; cursor?: string } {
  expectQuery(query, ["limit", "cursor"]);
  const limit = query.get("limit");
  const cursor = query.get("cursor");
  return { ...(limit === null ? {} : { limit }), ...(cursor === null ? {} : { cursor }) };
}

/** Unknown or repeated query parameters are refused, not ignored. */
function expectQuery(query: URLSearchParams, allowed: readonly string[]): void {
  const seen = new Set<string>();
  for (const key of query.keys()) {
    if (!allowed.includes(key)) throw invalidArgument(key, "is not a parameter of this request");
    if (seen.has(key)) throw invalidArgument(key, "is given twice");
    seen.add(key);
  }
}

/** `detail.allow` is the answer's `Allow` header. */
function expectMethod(method: string, allowed: readonly string[]): void {
  if (!allowed.includes(method)) {
    const allow = allowed.join(", ");
    throw new ArtifactError("invalid_argument", `method: this path takes ${allow} only`, {
      detail: { field: "method", reason: "method_not_allowed", allow },
    });
  }
}

function routeNotFound(): ArtifactError {
  return notFound("route");
}
