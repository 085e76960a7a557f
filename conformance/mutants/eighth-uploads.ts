import {
  type ArtifactMeta,
  allNames,
  allScopes,
  allVersions,
  type DownloadOptions,
  type GetOptions,
  type ListNamesOptions,
  type ListScopesOptions,
  type PutOptions,
  type Scope,
  type UploadOptions,
} from "@artifact-kit/core";
import { pageOfNames, watchUploads } from "./eighth-listings.js";
import { ForwardingService, slotKey } from "./forwarding.js";
import { idAtLevel, pageOfIds } from "./unnamed-6.js";

// Issue 31's eighth round, the write paths: an index, a pointer or a key lookup that put
// keeps and a streamed upload or a gated put, a path of its own, forgets.

/** Remembers which (scope, name, version) were written by put and which by an upload. */
abstract class PathsService extends ForwardingService {
  protected readonly byPut = new Map<string, Scope>();
  protected readonly uploaded = new Set<string>();
  override async put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    const meta = await super.put(scope, name, data, options);
    this.byPut.set(slotKey(scope, name), structuredClone(scope));
    return meta;
  }
  override async openUpload(scope: Scope, name: string, options?: UploadOptions) {
    const sink = await super.openUpload(scope, name, options);
    return watchUploads(sink, (meta: ArtifactMeta) =>
      this.uploaded.add(`${slotKey(meta.scope, meta.name)}\n${meta.version}`),
    );
  }
}

/** The scope's names index is written by put only: a name that only uploads wrote is not listed. */
export class UploadedNamesUnlisted extends PathsService {
  override async listNames(scope: Scope, options?: ListNamesOptions) {
    await super.listNames(scope, options);
    const names = (await allNames(this.inner, scope)).filter((name) =>
      this.byPut.has(slotKey(scope, name)),
    );
    return pageOfNames(scope, names, options, this.capabilities().pagination.maxPageLimit);
  }
}

/** The scopes index is written by put only: a scope that only uploads wrote is not listed. */
export class UploadedScopesUnlisted extends PathsService {
  override async listScopes(options?: ListScopesOptions) {
    await super.listScopes(options);
    const { cursor: _, limit: __, ...level } = options ?? {};
    const indexed = [...this.byPut.values()].map((scope) => idAtLevel(scope, options));
    const ids = (await allScopes(this.inner, level))
      .map((scope) => idAtLevel(scope, options))
      .filter((id): id is string => id !== undefined && indexed.includes(id));
    return pageOfIds(ids, options, this.capabilities().pagination.maxPageLimit);
  }
}

/** Latest is a pointer that put moves and an upload does not: a put's version stays latest. */
export class UploadDoesNotMoveLatest extends PathsService {
  async #pinned(scope: Scope, name: string, options?: GetOptions): Promise<GetOptions | undefined> {
    if (options?.version !== undefined && options.version !== "latest") return options;
    const live = await allVersions(this.inner, scope, name).catch(() => []);
    const key = slotKey(scope, name);
    const top = live.at(-1);
    if (top === undefined || !this.uploaded.has(`${key}\n${top.version}`)) return options;
    const byPut = live.filter((meta) => !this.uploaded.has(`${key}\n${meta.version}`)).at(-1);
    return byPut === undefined ? options : { ...options, version: byPut.version };
  }
  override async get(scope: Scope, name: string, options?: GetOptions) {
    return super.get(scope, name, await this.#pinned(scope, name, options));
  }
  override async head(scope: Scope, name: string, options?: GetOptions) {
    return super.head(scope, name, await this.#pinned(scope, name, options));
  }
}

/** A download of latest follows the latest pointer, which put moves and an upload does not. */
export class DownloadLatestIgnoresUploads extends PathsService {
  override async openDownload(scope: Scope, name: string, options?: DownloadOptions) {
    if (options?.version !== undefined && options.version !== "latest")
      return super.openDownload(scope, name, options);
    const live = await allVersions(this.inner, scope, name).catch(() => []);
    const key = slotKey(scope, name);
    const byPut = live.filter((meta) => !this.uploaded.has(`${key}\n${meta.version}`)).at(-1);
    return super.openDownload(
      scope,
      name,
      byPut === undefined ? options : { ...options, version: byPut.version },
    );
  }
}

/**
 * A put held by a publishGate publishes by a path of its own, which does not write the names
 * index: once its gate opens, its version is there but its new name is not listed.
 */
export class GatedPutNamesUnlisted extends ForwardingService {
  readonly #gated = new Set<string>();
  override async put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    const key = slotKey(scope, name);
    const meta = await super.put(scope, name, data, options);
    if (options?.publishGate === undefined) this.#gated.delete(key);
    else if ((await allVersions(this.inner, scope, name)).length === 1) this.#gated.add(key);
    return meta;
  }
  override async listNames(scope: Scope, options?: ListNamesOptions) {
    await super.listNames(scope, options);
    const names = (await allNames(this.inner, scope)).filter(
      (name) => !this.#gated.has(slotKey(scope, name)),
    );
    return pageOfNames(scope, names, options, this.capabilities().pagination.maxPageLimit);
  }
}

/** An upload looks keys up among uploads only: a key a put bound publishes again by upload. */
export class UploadIgnoresPutKeys extends ForwardingService {
  readonly #putKeys = new Set<string>();
  override async put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    const meta = await super.put(scope, name, data, options);
    if (options?.idempotencyKey !== undefined)
      this.#putKeys.add(`${slotKey(scope, name)}\n${options.idempotencyKey}`);
    return meta;
  }
  override openUpload(scope: Scope, name: string, options?: UploadOptions) {
    const key = options?.idempotencyKey;
    if (key === undefined || !this.#putKeys.has(`${slotKey(scope, name)}\n${key}`))
      return super.openUpload(scope, name, options);
    const { idempotencyKey: _, ...rest } = options ?? {};
    return super.openUpload(scope, name, rest);
  }
}
