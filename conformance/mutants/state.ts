import {
  type ArtifactMeta,
  type ArtifactService,
  allVersions,
  closedError,
  type DeleteSelector,
  type DownloadOptions,
  type GetOptions,
  type ListNamesOptions,
  type ListVersionsOptions,
  type PutOptions,
  quotaExceeded,
  type RequestOptions,
  type Scope,
  scopeKey,
  type UploadOptions,
} from "@artifact-kit/core";
import { ForwardingService, slotKey } from "./forwarding.js";

// Mutants whose bug shows only after several steps on the same artifact or store: a cache
// that a delete does not reach, a cursor that forgets where it was, a high-water that a
// delete does not give back.

/** Serves head("latest") from the last put: stale once the top version is deleted. */
export class StaleHeadLatest extends ForwardingService {
  readonly #lastPut = new Map<string, ArtifactMeta>();
  override async put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    const meta = await this.inner.put(scope, name, data, options);
    this.#lastPut.set(slotKey(scope, name), meta);
    return meta;
  }
  override async head(scope: Scope, name: string, options?: GetOptions) {
    const real = await this.inner.head(scope, name, options); // errors as the adapter's
    const cached = this.#lastPut.get(slotKey(scope, name));
    const latest = options?.version === undefined || options.version === "latest";
    return latest && cached ? cached : real;
  }
}

/** list() still shows versions deleted by number (it keeps its own index of puts). */
export class ListShowsDeletedVersions extends ForwardingService {
  readonly #put = new Map<string, ArtifactMeta[]>();
  override async put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    const meta = await this.inner.put(scope, name, data, options);
    const key = scopeKey(scope);
    this.#put.set(key, [...(this.#put.get(key) ?? []), meta]);
    return meta;
  }
  override async delete(
    scope: Scope,
    name: string,
    selector: DeleteSelector,
    options?: RequestOptions,
  ) {
    await this.inner.delete(scope, name, selector, options);
    if (selector === "all" || selector === "latest") {
      const key = scopeKey(scope);
      const live = new Set((await allVersions(this.inner, scope, name)).map((m) => m.version));
      this.#put.set(
        key,
        (this.#put.get(key) ?? []).filter((m) => m.name !== name || live.has(m.version)),
      );
    }
  }
  override async list(scope: Scope, options?: RequestOptions) {
    const live = await this.inner.list(scope, options);
    const known = this.#put.get(scopeKey(scope)) ?? [];
    const extra = known.filter(
      (m) => !live.some((l) => l.name === m.name && l.version === m.version),
    );
    return [...live, ...extra].sort((a, b) =>
      a.name === b.name
        ? a.version - b.version
        : Buffer.compare(Buffer.from(a.name), Buffer.from(b.name)),
    );
  }
}

/** A version cursor that is no longer live restarts the listing from the beginning. */
export class VersionCursorRestarts extends ForwardingService {
  override async listVersions(scope: Scope, name: string, options?: ListVersionsOptions) {
    const cursor = options?.cursor;
    if (cursor !== undefined) {
      const live = await allVersions(this.inner, scope, name);
      if (!live.some((m) => m.version === cursor)) {
        const { cursor: _, ...rest } = options ?? {};
        return this.inner.listVersions(scope, name, rest);
      }
    }
    return this.inner.listVersions(scope, name, options);
  }
}

/** A name cursor that is no longer live restarts the listing from the beginning. */
export class NameCursorRestarts extends ForwardingService {
  override async listNames(scope: Scope, options?: ListNamesOptions) {
    const cursor = options?.cursor;
    if (cursor !== undefined) {
      const live = await this.inner.listVersions(scope, cursor).catch(() => ({ items: [] }));
      if (live.items.length === 0) {
        const { cursor: _, ...rest } = options ?? {};
        return this.inner.listNames(scope, rest);
      }
    }
    return this.inner.listNames(scope, options);
  }
}

/** A full last page says there is more; the page after it is empty and says so again. */
export class EmptyPageWithCursor extends ForwardingService {
  override async listNames(scope: Scope, options?: ListNamesOptions) {
    const page = await this.inner.listNames(scope, options);
    if (page.nextCursor !== undefined) return page;
    const limit = options?.limit ?? this.inner.capabilities().pagination.maxPageLimit;
    const last = page.items.at(-1) ?? options?.cursor;
    return page.items.length === limit || (page.items.length === 0 && last !== undefined)
      ? { ...page, ...(last === undefined ? {} : { nextCursor: last }) }
      : page;
  }
}

/** listVersions serves every version in one page, whatever maxPageLimit says. */
export class VersionPagesUncapped extends ForwardingService {
  override async listVersions(scope: Scope, name: string, options?: ListVersionsOptions) {
    const { maxPageLimit } = this.inner.capabilities().pagination;
    if (options?.limit !== undefined && options.limit <= maxPageLimit) {
      return this.inner.listVersions(scope, name, options);
    }
    await this.inner.listVersions(scope, name, options); // the real validation and errors
    const all = await allVersions(this.inner, scope, name);
    const cursor = options?.cursor;
    return { items: all.filter((m) => cursor === undefined || m.version > cursor) };
  }
}

/** close() closes everything but streaming transfer, which goes on working. */
export class TransferOutlivesClose extends ForwardingService {
  #closed = false;
  #guard<T>(call: () => Promise<T>): Promise<T> {
    return this.#closed ? Promise.reject(closedError()) : call();
  }
  override put(...args: Parameters<ArtifactService["put"]>) {
    return this.#guard(() => this.inner.put(...args));
  }
  override get(...args: Parameters<ArtifactService["get"]>) {
    return this.#guard(() => this.inner.get(...args));
  }
  override head(...args: Parameters<ArtifactService["head"]>) {
    return this.#guard(() => this.inner.head(...args));
  }
  override delete(...args: Parameters<ArtifactService["delete"]>) {
    return this.#guard(() => this.inner.delete(...args));
  }
  override listNames(...args: Parameters<ArtifactService["listNames"]>) {
    return this.#guard(() => this.inner.listNames(...args));
  }
  override listVersions(...args: Parameters<ArtifactService["listVersions"]>) {
    return this.#guard(() => this.inner.listVersions(...args));
  }
  override list(...args: Parameters<ArtifactService["list"]>) {
    return this.#guard(() => this.inner.list(...args));
  }
  override openUpload(scope: Scope, name: string, options?: UploadOptions) {
    return super.openUpload(scope, name, options);
  }
  override openDownload(scope: Scope, name: string, options?: DownloadOptions) {
    return super.openDownload(scope, name, options);
  }
  override async close() {
    this.#closed = true;
  }
}

/** Counts bytes put per scope against maxScopeBytes and never gives them back on delete. */
export class DeleteFreesNoRoom extends ForwardingService {
  readonly #used = new Map<string, number>();
  override async put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    const bound = this.inner.capabilities().quotas.bounds.maxScopeBytes;
    let key: string;
    try {
      key = scopeKey(scope);
    } catch {
      return this.inner.put(scope, name, data, options); // the adapter refuses a bad scope
    }
    const used = (this.#used.get(key) ?? 0) + (data?.byteLength ?? 0);
    if (bound !== undefined && used > bound) {
      throw quotaExceeded("max_scope_bytes", bound, "put would exceed maxScopeBytes");
    }
    const meta = await this.inner.put(scope, name, data, options);
    this.#used.set(key, used);
    return meta;
  }
}
