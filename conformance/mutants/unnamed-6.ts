import { createHash } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import {
  type ArtifactMeta,
  allScopes,
  artifactTooLarge,
  compareUtf8,
  type GetOptions,
  invalidArgument,
  isArtifactError,
  type ListScopesOptions,
  notFound,
  type PutOptions,
  type Scope,
  type ScopePage,
  type UploadOptions,
} from "@artifact-kit/core";
import { ForwardingService, slotKey } from "./forwarding.js";

// Issue 31's fifth round: classes no earlier mutant named, written as an outside tester
// would, most of them visible only on some inputs (a count past a page, a size past a
// multipart threshold, a payload that differs in one place, a key of an emptied upload).

const sha256 = (data: Uint8Array) => createHash("sha256").update(data).digest("hex");
const keyOf = (scope: Scope, name: string, key: string) => `${slotKey(scope, name)}\n${key}`;
const withoutKey = (options: PutOptions): PutOptions => {
  const { idempotencyKey: _, ...rest } = options;
  return rest;
};

/** latest is the last item of the first page of versions: wrong past a page of live versions. */
export class LatestFromFirstPage extends ForwardingService {
  async #pinned(scope: Scope, name: string, options?: GetOptions): Promise<GetOptions | undefined> {
    if (options?.version !== undefined && options.version !== "latest") return options;
    const page = await this.inner.listVersions(scope, name);
    const last = page.items.at(-1);
    return last === undefined ? options : { ...options, version: last.version };
  }
  override async get(scope: Scope, name: string, options?: GetOptions) {
    return super.get(scope, name, await this.#pinned(scope, name, options));
  }
  override async head(scope: Scope, name: string, options?: GetOptions) {
    return super.head(scope, name, await this.#pinned(scope, name, options));
  }
}

/** An aborted keyed upload leaves its key taken: the key is not_found for good. */
export class AbortedUploadBindsKey extends ForwardingService {
  readonly #burned = new Set<string>();
  #refuse(scope: Scope, name: string, key: unknown) {
    if (typeof key === "string" && this.#burned.has(keyOf(scope, name, key)))
      throw notFound("the idempotency key's version");
  }
  override async put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    this.#refuse(scope, name, options?.idempotencyKey);
    return super.put(scope, name, data, options);
  }
  override async openUpload(scope: Scope, name: string, options?: UploadOptions) {
    this.#refuse(scope, name, options?.idempotencyKey);
    const upload = await super.openUpload(scope, name, options);
    const key = options?.idempotencyKey;
    return {
      write: (chunk: Uint8Array) => upload.write(chunk),
      finish: () => upload.finish(),
      abort: (reason?: unknown) => {
        if (typeof key === "string") this.#burned.add(keyOf(scope, name, key));
        return upload.abort(reason);
      },
    };
  }
}

/** A key is kept on the name's latest row only: once another put supersedes it, a retry publishes again. */
export class KeyForgottenWhenSuperseded extends ForwardingService {
  readonly #bound = new Map<string, number>();
  override async put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    const key = options?.idempotencyKey;
    if (typeof key !== "string" || options === undefined)
      return super.put(scope, name, data, options);
    const version = this.#bound.get(keyOf(scope, name, key));
    if (version !== undefined) {
      const latest = await this.inner.head(scope, name).catch(() => undefined);
      const live = await this.inner.head(scope, name, { version }).then(
        () => true,
        () => false,
      );
      if (live && latest !== undefined && latest.version !== version) {
        const meta = await super.put(scope, name, data, withoutKey(options));
        return { ...meta, idempotencyKey: key };
      }
    }
    const meta = await super.put(scope, name, data, options);
    this.#bound.set(keyOf(scope, name, key), meta.version);
    return meta;
  }
}

/** The sorted-key JSON of a metadata object (what a payload comparison would hash). */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === "object" && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => compareUtf8(a, b)))
      : inner,
  );

/**
 * A keyed retry whose payload differs is judged by `same(bound record, data, options)`: a
 * comparison that overlooks something answers the bound record instead of invalid_argument.
 */
abstract class LooseKeyedRetry extends ForwardingService {
  readonly #bound = new Map<string, number>();
  protected abstract same(bound: ArtifactMeta, data: Uint8Array, options: PutOptions): boolean;
  override async put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    const key = options?.idempotencyKey;
    try {
      const meta = await super.put(scope, name, data, options);
      if (typeof key === "string") this.#bound.set(keyOf(scope, name, key), meta.version);
      return meta;
    } catch (error) {
      const version =
        typeof key === "string" ? this.#bound.get(keyOf(scope, name, key)) : undefined;
      if (!isArtifactError(error, "invalid_argument") || error.detail.field !== "idempotencyKey")
        throw error;
      if (version === undefined || options === undefined) throw error;
      const bound = await this.inner.head(scope, name, { version });
      const mimeType = options.mimeType ?? "application/octet-stream";
      if (bound.mimeType === mimeType && this.same(bound, data, options)) return bound;
      throw error;
    }
  }
}

/** A keyed retry's bytes are compared by size alone: other bytes of the same length replay. */
export class KeyPayloadComparesSizeOnly extends LooseKeyedRetry {
  protected same(bound: ArtifactMeta, data: Uint8Array, options: PutOptions) {
    return (
      bound.size === data.byteLength &&
      canonical(bound.metadata) === canonical(options.metadata ?? {})
    );
  }
}

/** A keyed retry's metadata is compared one level deep: a difference inside a nested value replays. */
export class KeyPayloadIgnoresNestedMetadata extends LooseKeyedRetry {
  protected same(bound: ArtifactMeta, data: Uint8Array, options: PutOptions) {
    if (bound.sha256 !== sha256(data)) return false;
    const given: Record<string, unknown> = options.metadata ?? {};
    const stored: Record<string, unknown> = bound.metadata;
    const keys = Object.keys(given).sort();
    if (!isDeepStrictEqual(keys, Object.keys(stored).sort())) return false;
    return keys.every((key) => {
      const [a, b] = [given[key], stored[key]];
      const nested = (v: unknown) => v !== null && typeof v === "object";
      return nested(a) && nested(b) ? true : a === b;
    });
  }
}

/** artifact_too_large reports the refused data's size as the bound. */
export class TooLargeReportsSizeAsBound extends ForwardingService {
  override async put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    try {
      return await super.put(scope, name, data, options);
    } catch (error) {
      if (!isArtifactError(error, "artifact_too_large")) throw error;
      throw artifactTooLarge(data.byteLength, data.byteLength);
    }
  }
}

/** The ids one level of listScopes names, sorted and paged as the contract says. */
export function pageOfIds(
  ids: Iterable<string>,
  options: ListScopesOptions | undefined,
  maxPageLimit: number,
): ScopePage {
  const kind = options?.kind ?? "app";
  const sorted = [...new Set(ids)].sort(compareUtf8);
  const after = options?.cursor;
  const rest = after === undefined ? sorted : sorted.filter((id) => compareUtf8(id, after) > 0);
  const limit = Math.min(options?.limit ?? maxPageLimit, maxPageLimit);
  const page = rest.slice(0, limit);
  const items = page.map((id): Scope => {
    if (kind === "app") return { kind: "app", app: id };
    if (kind === "user") return { kind: "user", app: String(options?.app), user: id };
    return { kind: "session", app: String(options?.app), user: String(options?.user), session: id };
  });
  const last = page.at(-1);
  return rest.length > limit && last !== undefined ? { items, nextCursor: last } : { items };
}

/** The id a scope holds at the level `options` lists, when it is under the scope listed. */
export function idAtLevel(
  scope: Scope,
  options: ListScopesOptions | undefined,
): string | undefined {
  const kind = options?.kind ?? "app";
  if (kind === "app") return scope.app;
  if (scope.kind === "app" || scope.app !== options?.app) return undefined;
  if (kind === "user") return scope.user;
  if (scope.kind !== "session" || scope.user !== options?.user) return undefined;
  return scope.session;
}

/** A put refused by a quota has already recorded its scope: an empty scope is listed for good. */
export class QuotaRefusalListsScope extends ForwardingService {
  readonly #ghosts: Scope[] = [];
  override async put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    try {
      return await super.put(scope, name, data, options);
    } catch (error) {
      if (isArtifactError(error, "quota_exceeded")) this.#ghosts.push(structuredClone(scope));
      throw error;
    }
  }
  override async listScopes(options?: ListScopesOptions) {
    const page = await super.listScopes(options);
    if (this.#ghosts.length === 0) return page;
    const { cursor: _c, limit: _l, ...level } = options ?? {};
    const ids = (await allScopes(this.inner, level)).map((scope) => idAtLevel(scope, options));
    for (const ghost of this.#ghosts) ids.push(idAtLevel(ghost, options));
    const max = this.capabilities().pagination.maxPageLimit;
    return pageOfIds(
      ids.filter((id): id is string => id !== undefined),
      options,
      max,
    );
  }
}

const ZERO_WIDTH = /[\u200B-\u200D\u2060\uFEFF]/g;
const strip = (name: string) => (typeof name === "string" ? name.replace(ZERO_WIDTH, "") : name);

/** Names are "sanitized": zero-width characters (U+200B..U+200D, U+2060, U+FEFF) are dropped. */
export class StripsZeroWidth extends ForwardingService {
  override put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    return super.put(scope, strip(name), data, options);
  }
  override get(scope: Scope, name: string, options?: GetOptions) {
    return super.get(scope, strip(name), options);
  }
  override head(scope: Scope, name: string, options?: GetOptions) {
    return super.head(scope, strip(name), options);
  }
  override delete(...[scope, name, selector, options]: Parameters<ForwardingService["delete"]>) {
    return super.delete(scope, strip(name), selector, options);
  }
  override listVersions(...[scope, name, options]: Parameters<ForwardingService["listVersions"]>) {
    return super.listVersions(scope, strip(name), options);
  }
  override listNames(...[scope, options]: Parameters<ForwardingService["listNames"]>) {
    const prefix = options?.prefix;
    return super.listNames(
      scope,
      typeof prefix === "string" ? { ...options, prefix: strip(prefix) } : options,
    );
  }
  override openUpload(scope: Scope, name: string, options?: UploadOptions) {
    return super.openUpload(scope, strip(name), options);
  }
  override openDownload(...[scope, name, options]: Parameters<ForwardingService["openDownload"]>) {
    return super.openDownload(scope, strip(name), options);
  }
}

const MULTIPART = 5 * 1024 * 1024;

/** Data over 5 MiB goes the multipart way, whose parts after the first are stored as zeros. */
export class CorruptsAboveFiveMiB extends ForwardingService {
  override put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    if (!(data instanceof Uint8Array) || data.byteLength <= MULTIPART)
      return super.put(scope, name, data, options);
    const stored = data.slice();
    stored.fill(0, MULTIPART);
    return super.put(scope, name, stored, options);
  }
}

/** Metadata depth counts an array as two levels: valid metadata nested through lists is refused. */
export class DepthCountsArraysTwice extends ForwardingService {
  static #depth(value: unknown): number {
    if (value === null || typeof value !== "object") return 0;
    const children = Object.values(value).map((child) => DepthCountsArraysTwice.#depth(child));
    return (Array.isArray(value) ? 2 : 1) + Math.max(0, ...children);
  }
  static #refuseDeep(metadata: unknown) {
    if (DepthCountsArraysTwice.#depth(metadata) > 8)
      throw invalidArgument("metadata", "nested more than 8 levels deep");
  }
  override async put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    DepthCountsArraysTwice.#refuseDeep(options?.metadata);
    return super.put(scope, name, data, options);
  }
  override async openUpload(scope: Scope, name: string, options?: UploadOptions) {
    DepthCountsArraysTwice.#refuseDeep(options?.metadata);
    return super.openUpload(scope, name, options);
  }
}
