import { Deadline } from "./deadline.js";
import { invalidArgument } from "./errors.js";
import { DEFAULT_MIME_TYPE, MAX_IDEMPOTENCY_KEY_BYTES, MAX_SCOPE_ID_BYTES } from "./limits.js";
import { resolvePageLimit } from "./order.js";
import type { ArtifactMeta, DeleteSelector, JsonObject, PutOptions, Scope } from "./types.js";
import {
  validateData,
  validateMetadata,
  validateMimeType,
  validateName,
  validateNamePrefix,
  validateOptionKeys,
  validatePositiveInteger,
  validateScope,
  validateText,
} from "./validate.js";

// Each parser validates one operation's whole input up front (fail closed, nothing
// written) and returns it normalized, with the deadline fixed at the call.

const DEADLINE_KEYS = ["timeoutMs", "signal"] as const;

export interface ParsedRequest {
  scope: Scope;
  deadline: Deadline;
}

/** What a put and an upload both carry beside the bytes. */
export interface ParsedContent {
  mimeType: string;
  metadata: JsonObject;
  /** The caller's idempotency key (see PutOptions.idempotencyKey), or undefined. */
  idempotencyKey: string | undefined;
  /** What the publication waits for (PutOptions.publishGate), or undefined. */
  publishGate: PromiseLike<unknown> | undefined;
}

/** The options that hand parsed content on to another service (routers, buffering wrappers). */
export function contentOptions(
  content: ParsedContent,
): Pick<PutOptions, "mimeType" | "metadata" | "idempotencyKey" | "publishGate"> {
  return {
    mimeType: content.mimeType,
    metadata: content.metadata,
    ...(content.idempotencyKey === undefined ? {} : { idempotencyKey: content.idempotencyKey }),
    ...(content.publishGate === undefined ? {} : { publishGate: content.publishGate }),
  };
}

/**
 * The record of a version about to be published: what the put or upload carried, its
 * digest's size and SHA-256, the version allocated, and the time of publication.
 */
export function newVersionRecord(
  request: ParsedContent & { scope: Scope; name: string },
  digest: { size: number; sha256: string },
  version: number,
  createdAt = Date.now(),
): ArtifactMeta {
  return Object.freeze({
    scope: request.scope,
    name: request.name,
    version,
    mimeType: request.mimeType,
    size: digest.size,
    sha256: digest.sha256,
    createdAt,
    metadata: request.metadata,
    ...(request.idempotencyKey === undefined ? {} : { idempotencyKey: request.idempotencyKey }),
  });
}

export interface ParsedPut extends ParsedRequest, ParsedContent {
  name: string;
  data: Uint8Array;
}

/** The option keys of a put; an upload takes these and more. */
export const PUT_OPTION_KEYS = [
  ...DEADLINE_KEYS,
  "mimeType",
  "metadata",
  "idempotencyKey",
  "publishGate",
] as const;

/** The content description a put or an upload carries: mimeType (defaulted), metadata, key. */
export function parseContentOptions(opts: Record<string, unknown>): ParsedContent {
  return {
    mimeType: opts.mimeType === undefined ? DEFAULT_MIME_TYPE : validateMimeType(opts.mimeType),
    metadata: opts.metadata === undefined ? Object.freeze({}) : validateMetadata(opts.metadata),
    idempotencyKey:
      opts.idempotencyKey === undefined
        ? undefined
        : validateText(opts.idempotencyKey, "idempotencyKey", MAX_IDEMPOTENCY_KEY_BYTES),
    publishGate: opts.publishGate === undefined ? undefined : validateGate(opts.publishGate),
  };
}

/** A thenable, kept as given: calling `then` before the publication would start the wait. */
function validateGate(gate: unknown): PromiseLike<unknown> {
  if (typeof (gate as PromiseLike<unknown> | null)?.then !== "function") {
    throw invalidArgument("publishGate", "must be a promise");
  }
  return gate as PromiseLike<unknown>;
}

export function parsePut(
  scope: unknown,
  name: unknown,
  data: unknown,
  options: unknown,
): ParsedPut {
  const opts = validateOptionKeys(options, PUT_OPTION_KEYS);
  return {
    scope: validateScope(scope),
    name: validateName(name),
    data: validateData(data),
    ...parseContentOptions(opts),
    deadline: Deadline.start(opts),
  };
}

export interface ParsedGet extends ParsedRequest {
  name: string;
  version: number | "latest";
}

export function parseGet(scope: unknown, name: unknown, options: unknown): ParsedGet {
  const opts = validateOptionKeys(options, [...DEADLINE_KEYS, "version"]);
  const version = opts.version === undefined ? "latest" : opts.version;
  return {
    scope: validateScope(scope),
    name: validateName(name),
    version: version === "latest" ? version : validatePositiveInteger(version, "version"),
    deadline: Deadline.start(opts),
  };
}

export interface ParsedDelete extends ParsedRequest {
  name: string;
  selector: DeleteSelector;
}

export function parseDelete(
  scope: unknown,
  name: unknown,
  selector: unknown,
  options: unknown,
): ParsedDelete {
  const opts = validateOptionKeys(options, DEADLINE_KEYS);
  if (selector !== "latest" && selector !== "all" && typeof selector !== "number") {
    throw invalidArgument("selector", 'must be a version number, "latest" or "all"');
  }
  return {
    scope: validateScope(scope),
    name: validateName(name),
    selector:
      typeof selector === "number" ? validatePositiveInteger(selector, "selector") : selector,
    deadline: Deadline.start(opts),
  };
}

export interface ParsedListNames extends ParsedRequest {
  limit: number;
  cursor: string | undefined;
  /** Only names that start with it (UTF-8 order, so they are one contiguous run); or undefined. */
  prefix: string | undefined;
}

export function parseListNames(
  scope: unknown,
  options: unknown,
  maxPageLimit: number,
): ParsedListNames {
  const opts = validateOptionKeys(options, [...DEADLINE_KEYS, "limit", "cursor", "prefix"]);
  return {
    scope: validateScope(scope),
    limit: resolvePageLimit(opts.limit, maxPageLimit),
    cursor: opts.cursor === undefined ? undefined : validateName(opts.cursor, "cursor"),
    prefix: opts.prefix === undefined ? undefined : validateNamePrefix(opts.prefix),
    deadline: Deadline.start(opts),
  };
}

export interface ParsedListVersions extends ParsedRequest {
  name: string;
  limit: number;
  cursor: number | undefined;
}

export function parseListVersions(
  scope: unknown,
  name: unknown,
  options: unknown,
  maxPageLimit: number,
): ParsedListVersions {
  const opts = validateOptionKeys(options, [...DEADLINE_KEYS, "limit", "cursor"]);
  return {
    scope: validateScope(scope),
    name: validateName(name),
    limit: resolvePageLimit(opts.limit, maxPageLimit),
    cursor: opts.cursor === undefined ? undefined : validatePositiveInteger(opts.cursor, "cursor"),
    deadline: Deadline.start(opts),
  };
}

/** For operations that take only a scope and the deadline options (legacy `list`). */
export function parseScopeRequest(scope: unknown, options: unknown): ParsedRequest {
  const opts = validateOptionKeys(options, DEADLINE_KEYS);
  return { scope: validateScope(scope), deadline: Deadline.start(opts) };
}

/**
 * One level of the scope tree that listScopes walks: every app; the users of one app; or the
 * sessions of one app's user.
 */
export type ScopeLevel =
  | { readonly kind: "app" }
  | { readonly kind: "user"; readonly app: string }
  | { readonly kind: "session"; readonly app: string; readonly user: string };

/** A listScopes request: not about one scope, so it carries a level instead. */
export interface ParsedListScopes {
  level: ScopeLevel;
  limit: number;
  /** Exclusive: the last id (of the level's kind) of the previous page. */
  cursor: string | undefined;
  deadline: Deadline;
}

const scopeId = (value: unknown, field: string) => validateText(value, field, MAX_SCOPE_ID_BYTES);

/** The level that listScopes options ask for (`opts`: options already checked for unknown keys). */
export function parseScopeLevel(opts: Record<string, unknown>): ScopeLevel {
  const kind = opts.kind ?? "app";
  if (kind !== "app" && kind !== "user" && kind !== "session") {
    throw invalidArgument("kind", 'must be "app", "user" or "session"');
  }
  // A missing app or user fails its id check below, naming the field ("must be a string").
  if (kind === "app" && opts.app !== undefined) {
    throw invalidArgument("app", 'is only for kind "user" or "session"');
  }
  if (kind !== "session" && opts.user !== undefined) {
    throw invalidArgument("user", 'is only for kind "session"');
  }
  if (kind === "app") return Object.freeze({ kind });
  const app = scopeId(opts.app, "app");
  if (kind === "user") return Object.freeze({ kind, app });
  return Object.freeze({ kind, app, user: scopeId(opts.user, "user") });
}

export function parseListScopes(options: unknown, maxPageLimit: number): ParsedListScopes {
  const opts = validateOptionKeys(options, [
    ...DEADLINE_KEYS,
    "kind",
    "app",
    "user",
    "cursor",
    "limit",
  ]);
  return {
    level: parseScopeLevel(opts),
    limit: resolvePageLimit(opts.limit, maxPageLimit),
    cursor: opts.cursor === undefined ? undefined : scopeId(opts.cursor, "cursor"),
    deadline: Deadline.start(opts),
  };
}
