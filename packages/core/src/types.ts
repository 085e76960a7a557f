import type { ValidationLimits } from "./limits.js";

export type Scope =
  | { readonly kind: "app"; readonly app: string }
  | { readonly kind: "user"; readonly app: string; readonly user: string }
  | {
      readonly kind: "session";
      readonly app: string;
      readonly user: string;
      readonly session: string;
    };

export type ScopeKind = Scope["kind"];

export type JsonPrimitive = null | boolean | number | string;
export type JsonValue = JsonPrimitive | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

export interface ArtifactMeta {
  readonly scope: Scope;
  readonly name: string;
  /** Positive integer, strictly increasing per (scope, name), never reused. */
  readonly version: number;
  readonly mimeType: string;
  readonly size: number;
  /** Lowercase hex SHA-256 of the data. */
  readonly sha256: string;
  /** Milliseconds since the epoch. */
  readonly createdAt: number;
  readonly metadata: JsonObject;
  /** The caller's idempotency key this version was written with; absent when none was given. */
  readonly idempotencyKey?: string;
}

export interface Artifact extends ArtifactMeta {
  readonly data: Uint8Array;
}

/**
 * One absolute deadline: `timeoutMs` (above 0, at most 300000; a fraction is rounded up to
 * whole milliseconds) from the call, and/or a signal.
 */
export interface RequestOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface PutOptions extends RequestOptions {
  mimeType?: string;
  metadata?: JsonObject;
  /**
   * Makes retries safe. Within one (scope, name), the first put (or upload) that publishes with
   * a key binds the key to its version, for good (like the version high-water, a key is never
   * released, also not by delete). A later put with the same key writes nothing and:
   * - fails with not_found (detail.version) when the bound version has since been deleted,
   *   whatever the payload (a deleted version is judged first: there is nothing to compare
   *   the retry with that a store must keep);
   * - returns the bound version's record when its payload (size, sha256, mimeType, metadata)
   *   is the same;
   * - fails with invalid_argument (detail.field "idempotencyKey") when the payload differs.
   * Concurrent puts with one key publish at most one version; every one that succeeds reports
   * it. The same key in another scope or under another name is another key.
   * 1..256 UTF-8 bytes, no NUL (`capabilities().limits.maxIdempotencyKeyBytes`).
   */
  idempotencyKey?: string;
  /**
   * Holds the publication back: the put (or upload) does all it can before its commit point
   * (the adapter may stage, write and sync the bytes, and bind the idempotency key), then
   * waits for this promise, and publishes only once it fulfils. When it rejects, the put
   * publishes nothing and fails with the rejection (an ArtifactError as it is, anything else
   * as unavailable). What a rejected keyed put staged stays the key's: a retry with the key
   * publishes it, or a fresh version. For a caller that must record something durably before
   * a version may exist, without waiting for that record before it starts the put (the
   * effects journal writes its intent so). In process only; the deadline still bounds the
   * put up to its commit point, not the wait, which ends when the gate settles. The put does
   * not handle the gate's rejection before it waits on it.
   */
  publishGate?: PromiseLike<unknown>;
}

export type VersionSelector = number | "latest";
export type DeleteSelector = number | "latest" | "all";

export interface GetOptions extends RequestOptions {
  version?: VersionSelector;
}

export interface ListNamesOptions extends RequestOptions {
  limit?: number;
  /** Exclusive: the last name of the previous page. */
  cursor?: string;
  /**
   * Only names that start with this string ("reports/" lists everything under reports/),
   * in the same order and pages: the listing equals the full one filtered by the prefix.
   */
  prefix?: string;
}

export interface NamePage {
  readonly scope: Scope;
  readonly items: readonly string[];
  readonly nextCursor?: string;
}

/**
 * Scope discovery: which scopes hold artifacts, one level at a time.
 * - kind "app" (the default): every app under which some scope (the app scope itself, a user
 *   scope or a session scope of it) holds a live version. `app` and `user` must be absent.
 * - kind "user": every user of `app` whose user scope, or a session scope under it, holds a
 *   live version. `app` is required, `user` must be absent.
 * - kind "session": every session of `app` + `user` whose session scope holds a live version.
 *   `app` and `user` are required.
 * A scope is listed from the moment a put into it (or under it) is acknowledged, and no longer
 * once the last live version under it is deleted: listings are exact, never a superset.
 * Ids come in UTF-8 byte order, paged like listNames; a service configured with a key prefix,
 * schema, root or namespace lists only scopes stored under its own.
 */
export interface ListScopesOptions extends RequestOptions {
  /** The level to list (default "app"). */
  kind?: ScopeKind;
  /** The app whose users or sessions are listed: required for "user" and "session". */
  app?: string;
  /** The user whose sessions are listed: required for "session". */
  user?: string;
  /** Exclusive: the last id (app, user or session id) of the previous page. */
  cursor?: string;
  /** At most this many scopes (a positive integer, capped at pagination.maxPageLimit). */
  limit?: number;
}

export interface ScopePage {
  /** Scopes of the kind listed, ordered by their last id in UTF-8 byte order. */
  readonly items: readonly Scope[];
  /** Present when more scopes follow: pass it as `cursor` for the next page. */
  readonly nextCursor?: string;
}

export interface ListVersionsOptions extends RequestOptions {
  limit?: number;
  /** Exclusive: the last version of the previous page. */
  cursor?: number;
}

export interface VersionPage {
  readonly items: readonly ArtifactMeta[];
  readonly nextCursor?: number;
}

/**
 * What an acknowledged write survives. "volatile": nothing past the service instance (kept
 * in memory). "process": the writing process being killed, and a reopen of the store, but
 * not a power cut or a kernel crash (written without fsync; for development loops).
 * "durable": a power cut too (on the disk or in the backend before it is acknowledged).
 */
export type Durability = "volatile" | "process" | "durable";

export interface QuotaReport {
  /** "global": one bound for the whole service; "per_shard": each worker enforces its own. */
  readonly appliesTo: "global" | "per_shard";
  /** Configured bounds by name, e.g. maxArtifactBytes, maxScopeBytes, maxScopeArtifacts. */
  readonly bounds: Readonly<Record<string, number>>;
}

export interface TransferCapabilities {
  readonly streamingUpload: boolean;
  readonly streamingDownload: boolean;
  readonly byteRanges: boolean;
}

/** How a router spreads scopes over adapter instances ("workers"); absent on a plain adapter. */
export interface RoutingCapabilities {
  /** `exact_scope`: one worker per exact scope; `shared`: one worker for every scope. */
  readonly strategy: "exact_scope" | "shared";
  /**
   * `lru`: durable workers with nothing in flight are closed after `idleScopeTimeoutMs`, and
   * at capacity the least recently used one is reclaimed at once; `never`: workers hold
   * volatile data and stay for the router's lifetime.
   */
  readonly reclamation: "lru" | "never";
  readonly idleScopeTimeoutMs: number;
  /** An open transfer that goes this long without a call is ended and its worker let go. */
  readonly transferIdleTimeoutMs: number;
}

/** Declared by an adapter that implements createDownloadUrl (see ArtifactDownloadUrls). */
export interface DownloadUrlCapabilities {
  /** The longest expiry a download URL may be given, in seconds. */
  readonly maxExpiresInSeconds: number;
}

export interface Capabilities {
  readonly apiVersion: 1;
  readonly immutableVersions: true;
  readonly scopes: readonly ScopeKind[];
  readonly durability: Durability;
  readonly pagination: { readonly maxPageLimit: number; readonly legacyListLimit: number };
  readonly limits: ValidationLimits;
  readonly quotas: QuotaReport;
  readonly transfer?: TransferCapabilities;
  readonly routing?: RoutingCapabilities;
  /** Present when the adapter makes download URLs of its own (createDownloadUrl). */
  readonly downloadUrls?: DownloadUrlCapabilities;
}

export interface ArtifactService {
  capabilities(): Capabilities;
  put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions): Promise<ArtifactMeta>;
  get(scope: Scope, name: string, options?: GetOptions): Promise<Artifact>;
  head(scope: Scope, name: string, options?: GetOptions): Promise<ArtifactMeta>;
  delete(
    scope: Scope,
    name: string,
    selector: DeleteSelector,
    options?: RequestOptions,
  ): Promise<void>;
  listNames(scope: Scope, options?: ListNamesOptions): Promise<NamePage>;
  listVersions(scope: Scope, name: string, options?: ListVersionsOptions): Promise<VersionPage>;
  /** Legacy: every live version in the scope (by name, then version), or result_limit_exceeded. */
  list(scope: Scope, options?: RequestOptions): Promise<ArtifactMeta[]>;
  /** The scopes that hold live artifacts, one level at a time (see ListScopesOptions). */
  listScopes(options?: ListScopesOptions): Promise<ScopePage>;
  close(): Promise<void>;
}
