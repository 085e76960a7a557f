import {
  ArtifactError,
  invalidArgument,
  isArtifactError,
  MAX_SCOPE_ID_BYTES,
  notFound,
  type Scope,
  type ScopeKind,
  type VersionSelector,
  validateName,
  validateNamePrefix,
  validateScope,
  validateText,
} from "@artifact-kit/core";
import { parseCount } from "../parse-count.js";

// The API's paths, each id one percent-encoded segment (a "/" in an id is %2F):
//   GET    /v1/scopes?kind&app&user&limit&cursor                  scopes holding artifacts
//   GET    /v1/apps/A[/users/U[/sessions/S]]/names?prefix&limit&cursor
//   PUT    /v1/apps/A[/users/U[/sessions/S]]/names/NAME           upload (streamed body)
//   DELETE /v1/apps/A[/users/U[/sessions/S]]/names/NAME           every version
//   GET    /v1/apps/A[/users/U[/sessions/S]]/names/NAME/versions?limit&cursor
//   GET    /v1/apps/A[/users/U[/sessions/S]]/names/NAME/versions/V       one version, metadata too
//   DELETE /v1/apps/A[/users/U[/sessions/S]]/names/NAME/versions/V       V a number or "latest"
//   GET    /v1/apps/A[/users/U[/sessions/S]]/names/NAME/versions/V/content?disposition
//   POST   /v1/apps/A[/users/U[/sessions/S]]/names/NAME/versions/V/link  a signed link
//   GET    /v1/apps/A[/users/U[/sessions/S]]            counts and a confirmation token
//   DELETE /v1/apps/A[/users/U[/sessions/S]]            body {"confirm": <that token>}
// Segments are split before decoding and never normalized: a raw "." or ".." is refused,
// and a decoded id is only ever an id, validated by core like any other. The raw request
// target is parsed here (not the framework's URL, which resolves dot segments).

export type Disposition = "attachment" | "inline";

export type ScopeRoute =
  | { operation: "listNames"; scope: Scope; limit?: number; cursor?: string; prefix?: string }
  | { operation: "listVersions"; scope: Scope; name: string; limit?: number; cursor?: number }
  | { operation: "getVersion"; scope: Scope; name: string; version: VersionSelector }
  | {
      operation: "download";
      scope: Scope;
      name: string;
      version: VersionSelector;
      disposition: Disposition;
    }
  | { operation: "createLink"; scope: Scope; name: string; version: VersionSelector }
  | { operation: "upload"; scope: Scope; name: string }
  | { operation: "deleteVersions"; scope: Scope; name: string; selector: number | "latest" | "all" }
  | { operation: "inspectScope"; scope: Scope }
  | { operation: "deleteScope"; scope: Scope };

export interface ScopesRoute {
  operation: "listScopes";
  kind: ScopeKind;
  app?: string;
  user?: string;
  limit?: number;
  cursor?: string;
}

export type ApiRoute = ScopeRoute | ScopesRoute;

export function parseRoute(method: string, url: string): ApiRoute {
  const queryAt = url.indexOf("?");
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  const query = new URLSearchParams(queryAt === -1 ? "" : url.slice(queryAt + 1));
  const segments = splitPath(path);
  if (segments.shift() !== "v1") throw routeNotFound();
  if (segments[0] === "scopes" && segments.length === 1) {
    expectMethod(method, ["GET"]);
    return scopesRoute(query);
  }
  if (segments.shift() !== "apps") throw routeNotFound();
  const { scope, rest } = scopeOfSegments(segments);
  return routeWithin(scope, rest, method, query);
}

/** `apps/A[/users/U[/sessions/S]]`, ids percent-encoded: the form `serve --scope` takes. */
export function parseScopePath(text: string): Scope {
  const usage = () => invalidArgument("scope", "must be apps/APP[/users/USER[/sessions/SESSION]]");
  const segments = splitPath(text.startsWith("/") ? text : `/${text}`);
  if (segments.shift() !== "apps") throw usage();
  let parsed: { scope: Scope; rest: readonly string[] };
  try {
    parsed = scopeOfSegments(segments);
  } catch (error) {
    // A missing id is no route for a request, but for a flag it is a malformed scope.
    throw isArtifactError(error, "not_found") ? usage() : error;
  }
  if (parsed.rest.length > 0) throw usage();
  return parsed.scope;
}

function splitPath(path: string): string[] {
  const raw = path.split("/");
  if (raw.shift() !== "" || raw.some((segment) => segment === "." || segment === "..")) {
    throw invalidArgument("path", "must be absolute, without dot segments");
  }
  return raw.map(decodeSegment);
}

function scopeOfSegments(segments: readonly string[]): { scope: Scope; rest: readonly string[] } {
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
  return { scope, rest };
}

function scopesRoute(query: URLSearchParams): ScopesRoute {
  expectQuery(query, ["kind", "app", "user", "limit", "cursor"]);
  const kind = query.get("kind") ?? "app";
  if (kind !== "app" && kind !== "user" && kind !== "session") {
    throw invalidArgument("kind", 'must be "app", "user" or "session"');
  }
  const app = query.get("app");
  const user = query.get("user");
  const limit = query.get("limit");
  const cursor = query.get("cursor");
  if (kind !== "app" && app === null) throw invalidArgument("app", `is required to list ${kind}s`);
  if (kind === "session" && user === null) {
    throw invalidArgument("user", "is required to list sessions");
  }
  return {
    operation: "listScopes",
    kind,
    ...(app === null ? {} : { app: validateText(app, "app", MAX_SCOPE_ID_BYTES) }),
    ...(user === null ? {} : { user: validateText(user, "user", MAX_SCOPE_ID_BYTES) }),
    ...(limit === null ? {} : { limit: parseCount(limit, "limit") }),
    ...(cursor === null ? {} : { cursor: validateText(cursor, "cursor", MAX_SCOPE_ID_BYTES) }),
  };
}

function routeWithin(
  scope: Scope,
  rest: readonly string[],
  method: string,
  query: URLSearchParams,
): ScopeRoute {
  if (rest.length === 0) {
    expectMethod(method, ["GET", "DELETE"]);
    expectQuery(query, []);
    return { operation: method === "GET" ? "inspectScope" : "deleteScope", scope };
  }
  if (rest[0] !== "names") throw routeNotFound();
  if (rest.length === 1) {
    expectMethod(method, ["GET"]);
    expectQuery(query, ["limit", "cursor", "prefix"]);
    const limit = query.get("limit");
    const cursor = query.get("cursor");
    const prefix = query.get("prefix");
    return {
      operation: "listNames",
      scope,
      ...(limit === null ? {} : { limit: parseCount(limit, "limit") }),
      ...(cursor === null ? {} : { cursor: validateName(cursor, "cursor") }),
      ...(prefix === null || prefix === "" ? {} : { prefix: validateNamePrefix(prefix) }),
    };
  }
  const name = validateName(rest[1]);
  if (rest.length === 2) {
    expectMethod(method, ["PUT", "DELETE"]);
    expectQuery(query, []);
    return method === "PUT"
      ? { operation: "upload", scope, name }
      : { operation: "deleteVersions", scope, name, selector: "all" };
  }
  if (rest[2] !== "versions") throw routeNotFound();
  if (rest.length === 3) {
    expectMethod(method, ["GET"]);
    expectQuery(query, ["limit", "cursor"]);
    const limit = query.get("limit");
    const cursor = query.get("cursor");
    return {
      operation: "listVersions",
      scope,
      name,
      ...(limit === null ? {} : { limit: parseCount(limit, "limit") }),
      ...(cursor === null ? {} : { cursor: parseCount(cursor, "cursor") }),
    };
  }
  const version = parseVersion(rest[3] ?? "");
  if (rest.length === 4) {
    expectMethod(method, ["GET", "DELETE"]);
    expectQuery(query, []);
    return method === "GET"
      ? { operation: "getVersion", scope, name, version }
      : { operation: "deleteVersions", scope, name, selector: version };
  }
  if (rest.length === 5 && rest[4] === "content") {
    expectMethod(method, ["GET"]);
    expectQuery(query, ["disposition"]);
    const disposition = query.get("disposition") ?? "attachment";
    if (disposition !== "attachment" && disposition !== "inline") {
      throw invalidArgument("disposition", 'must be "attachment" or "inline"');
    }
    return { operation: "download", scope, name, version, disposition };
  }
  if (rest.length === 5 && rest[4] === "link") {
    expectMethod(method, ["POST"]);
    expectQuery(query, []);
    return { operation: "createLink", scope, name, version };
  }
  throw routeNotFound();
}

function parseVersion(text: string): VersionSelector {
  return text === "latest" ? "latest" : parseCount(text, "version");
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw invalidArgument("path", "has a malformed percent-encoding");
  }
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
