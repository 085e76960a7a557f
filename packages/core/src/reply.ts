import { ArtifactError, invalidServiceReply } from "./errors.js";
import { MAX_IDEMPOTENCY_KEY_BYTES } from "./limits.js";
import { compareNumbers, compareUtf8, resolvePageLimit } from "./order.js";
import { parseScopeLevel } from "./request.js";
import { sameScope, sha256Hex } from "./scope.js";
import { idAtLevel } from "./scope-listing.js";
import type {
  Artifact,
  ArtifactMeta,
  ListScopesOptions,
  NamePage,
  Scope,
  ScopePage,
  VersionPage,
} from "./types.js";
import {
  validateMetadata,
  validateMimeType,
  validateName,
  validateScope,
  validateText,
} from "./validate.js";

// Checks of what a service returned, for callers that must not trust it blindly
// (scoped capabilities, the conformance kit). Each failure is invalid_service_reply.

const invalidReply = invalidServiceReply;

function attempt<T>(what: string, check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof ArtifactError && error.code === "invalid_service_reply") throw error;
    throw invalidReply(`${what}: ${error instanceof Error ? error.message : String(error)}`, error);
  }
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

/** A well-formed record for exactly `scope` and, when given, `name`. */
export function checkMetaReply(value: unknown, scope: Scope, name?: string): ArtifactMeta {
  return attempt("artifact record", () => {
    if (typeof value !== "object" || value === null) throw invalidReply("is not an object");
    const meta = value as Record<string, unknown>;
    if (!sameScope(validateScope(meta.scope), scope)) throw invalidReply("is for another scope");
    const metaName = validateName(meta.name);
    if (name !== undefined && metaName !== name) throw invalidReply("is for another name");
    if (!isCount(meta.version) || meta.version < 1) throw invalidReply("has an invalid version");
    if (!isCount(meta.size)) throw invalidReply("has an invalid size");
    if (typeof meta.sha256 !== "string" || !SHA256_HEX.test(meta.sha256)) {
      throw invalidReply("has an invalid sha256");
    }
    if (typeof meta.createdAt !== "number" || !Number.isFinite(meta.createdAt)) {
      throw invalidReply("has an invalid createdAt");
    }
    validateMimeType(meta.mimeType);
    validateMetadata(meta.metadata);
    if (meta.idempotencyKey !== undefined) {
      validateText(meta.idempotencyKey, "idempotencyKey", MAX_IDEMPOTENCY_KEY_BYTES);
    }
    return value as ArtifactMeta;
  });
}

/** A record as above whose data matches its size and SHA-256. */
export function checkArtifactReply(
  value: unknown,
  scope: Scope,
  name: string,
  version?: number,
): Artifact {
  const meta = checkMetaReply(value, scope, name);
  if (version !== undefined && meta.version !== version)
    throw invalidReply("is for another version");
  const data = (value as { data?: unknown }).data;
  if (!(data instanceof Uint8Array)) throw invalidReply("artifact record carries no data");
  if (data.byteLength !== meta.size || sha256Hex(data) !== meta.sha256) {
    throw invalidReply("artifact data does not match its size and sha256");
  }
  return value as Artifact;
}

/** A page of names for `scope`, within `limit`, and all with `prefix` when one was asked. */
export function checkNamePageReply(
  value: unknown,
  scope: Scope,
  limit: number,
  prefix?: string,
): NamePage {
  return attempt("name page", () => {
    const page = value as NamePage | null;
    if (typeof page !== "object" || page === null || !Array.isArray(page.items)) {
      throw invalidReply("is not a page");
    }
    if (!sameScope(validateScope(page.scope), scope)) throw invalidReply("is for another scope");
    if (page.items.length > limit) throw invalidReply("has more items than the limit");
    page.items.forEach((item, i) => {
      validateName(item);
      if (prefix !== undefined && !item.startsWith(prefix)) {
        throw invalidReply("holds a name without the prefix asked for");
      }
      const previous = page.items[i - 1];
      if (previous !== undefined && compareUtf8(previous, item) >= 0) {
        throw invalidReply("names are not in strictly ascending UTF-8 order");
      }
    });
    if (page.nextCursor !== undefined) validateName(page.nextCursor, "nextCursor");
    return page;
  });
}

export function checkVersionPageReply(
  value: unknown,
  scope: Scope,
  name: string,
  limit: number,
): VersionPage {
  return attempt("version page", () => {
    const page = value as VersionPage | null;
    if (typeof page !== "object" || page === null || !Array.isArray(page.items)) {
      throw invalidReply("is not a page");
    }
    if (page.items.length > limit) throw invalidReply("has more items than the limit");
    page.items.forEach((item, i) => {
      checkMetaReply(item, scope, name);
      if ("data" in item) throw invalidReply("a version page carries data");
      const previous = page.items[i - 1];
      if (previous !== undefined && compareNumbers(previous.version, item.version) >= 0) {
        throw invalidReply("versions are not strictly ascending");
      }
    });
    if (page.nextCursor !== undefined && (!isCount(page.nextCursor) || page.nextCursor < 1)) {
      throw invalidReply("nextCursor is not a version");
    }
    return page;
  });
}

/**
 * A page of scopes for a listScopes call with `options` (already accepted by the service):
 * of the kind asked for under its app and user, within the limit (capped at `maxPageLimit`),
 * in strictly ascending UTF-8 order of their ids, all after the cursor, and a nextCursor only
 * on a non-empty page, equal to its last id.
 */
export function checkScopePageReply(
  value: unknown,
  options: ListScopesOptions | undefined,
  maxPageLimit: number,
): ScopePage {
  const opts = (options ?? {}) as Record<string, unknown>;
  const level = parseScopeLevel(opts);
  const limit = resolvePageLimit(opts.limit, maxPageLimit);
  const cursor = typeof opts.cursor === "string" ? opts.cursor : undefined;
  return attempt("scope page", () => {
    const page = value as ScopePage | null;
    if (typeof page !== "object" || page === null || !Array.isArray(page.items)) {
      throw invalidReply("is not a page");
    }
    if (page.items.length > limit) throw invalidReply("has more items than the limit");
    let previous = cursor;
    for (const item of page.items) {
      const scope = validateScope(item);
      const id = scope.kind === level.kind ? idAtLevel(level, scope) : undefined;
      if (id === undefined) {
        throw invalidReply(`holds a scope outside the ${level.kind} level asked for`);
      }
      if (previous !== undefined && compareUtf8(previous, id) >= 0) {
        throw invalidReply("ids are not in strictly ascending UTF-8 order after the cursor");
      }
      previous = id;
    }
    if (
      page.nextCursor !== undefined &&
      (page.items.length === 0 || page.nextCursor !== previous)
    ) {
      throw invalidReply("nextCursor is not the last id of a non-empty page");
    }
    return page;
  });
}
