import {
  type ArtifactMeta,
  allNames,
  allVersions,
  compareUtf8,
  isArtifactError,
  type ListNamesOptions,
  type ListScopesOptions,
  type ListVersionsOptions,
  type NamePage,
  type PutOptions,
  resultLimitExceeded,
  type Scope,
  type UploadOptions,
  type UploadSink,
  type VersionPage,
} from "@artifact-kit/core";
import { ForwardingService, slotKey } from "./forwarding.js";

// Issue 31's eighth round, the listings: pages that a name index, a directory walk or a
// SQL query built slightly wrong, each wrong only on some inputs (a prefix that ends where
// other names follow, a cursor that is a directory, a name equal to its prefix, a page
// size past a batch threshold, a first page read newest first).

/** A page of names after `options.cursor`, under `options.prefix`, from a whole listing. */
export function pageOfNames(
  scope: Scope,
  names: Iterable<string>,
  options: ListNamesOptions | undefined,
  maxPageLimit: number,
): NamePage {
  const prefix = options?.prefix ?? "";
  const after = options?.cursor;
  const rest = [...new Set(names)]
    .filter((name) => name.startsWith(prefix))
    .filter((name) => after === undefined || compareUtf8(name, after) > 0)
    .sort(compareUtf8);
  const limit = Math.min(options?.limit ?? maxPageLimit, maxPageLimit);
  const items = rest.slice(0, limit);
  const last = items.at(-1);
  return rest.length > limit && last !== undefined
    ? { scope, items, nextCursor: last }
    : { scope, items };
}

/** Calls `onRecord` with the record of every upload that finishes. */
export function watchUploads(sink: UploadSink, onRecord: (meta: ArtifactMeta) => void): UploadSink {
  return {
    write: (chunk) => sink.write(chunk),
    abort: (reason) => sink.abort(reason),
    finish: async () => {
      const meta = await sink.finish();
      onRecord(meta);
      return meta;
    },
  };
}

/** Forwards everything and keeps the slots (scope, name) that a put or an upload wrote. */
export class WatchingService extends ForwardingService {
  protected readonly written = new Map<string, { scope: Scope; name: string; top: number }>();
  protected wrote(meta: ArtifactMeta) {
    const key = slotKey(meta.scope, meta.name);
    const top = Math.max(this.written.get(key)?.top ?? 0, meta.version);
    this.written.set(key, { scope: structuredClone(meta.scope), name: meta.name, top });
  }
  override async put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    const meta = await super.put(scope, name, data, options);
    this.wrote(meta);
    return meta;
  }
  override async openUpload(scope: Scope, name: string, options?: UploadOptions) {
    return watchUploads(await super.openUpload(scope, name, options), (meta) => this.wrote(meta));
  }
  protected get maxPageLimit() {
    return this.capabilities().pagination.maxPageLimit;
  }
}

/**
 * Under a prefix, whether more follows is asked of the whole scope, not of the prefix: past
 * the prefix's last name, while other names follow it, a page is empty and hands its cursor
 * back, so a caller that follows cursors never ends.
 */
export class PrefixPageEchoesCursor extends ForwardingService {
  override async listNames(scope: Scope, options?: ListNamesOptions) {
    const page = await super.listNames(scope, options);
    if (!options?.prefix || page.nextCursor !== undefined) return page;
    const last = page.items.at(-1) ?? options.cursor;
    if (last === undefined) return page;
    const more = await super.listNames(scope, { cursor: last, limit: 1 });
    return more.items.length === 0 ? page : { ...page, nextCursor: last };
  }
}

/** A name whose versions were all deleted one by one (by number or latest) stays listed. */
export class NamesEmptiedOneByOneListed extends ForwardingService {
  readonly #emptied = new Map<string, { scope: Scope; name: string }>();
  override async put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    const meta = await super.put(scope, name, data, options);
    this.#emptied.delete(slotKey(scope, name));
    return meta;
  }
  override async delete(
    scope: Scope,
    name: string,
    selector: number | "latest" | "all",
    options?: { timeoutMs?: number; signal?: AbortSignal },
  ) {
    await super.delete(scope, name, selector, options);
    const key = slotKey(scope, name);
    if (selector === "all") this.#emptied.delete(key);
    else if ((await this.inner.listVersions(scope, name, { limit: 1 })).items.length === 0)
      this.#emptied.set(key, { scope: structuredClone(scope), name });
  }
  override async listNames(scope: Scope, options?: ListNamesOptions) {
    await super.listNames(scope, options);
    const names = await allNames(this.inner, scope);
    for (const { scope: where, name } of this.#emptied.values())
      if (slotKey(where, name) === slotKey(scope, name)) names.push(name);
    return pageOfNames(scope, names, options, this.capabilities().pagination.maxPageLimit);
  }
}

/**
 * A name cursor is taken for a directory (a file-system walk resumes after the cursor's
 * subtree): after cursor "a", the names under "a/" are skipped.
 */
export class CursorSkipsChildren extends ForwardingService {
  override async listNames(scope: Scope, options?: ListNamesOptions) {
    const page = await super.listNames(scope, options);
    const cursor = options?.cursor;
    if (cursor === undefined) return page;
    const names = (await allNames(this.inner, scope)).filter(
      (name) => !name.startsWith(`${cursor}/`),
    );
    return pageOfNames(scope, names, options, this.capabilities().pagination.maxPageLimit);
  }
}

/** A prefix is matched as a range that starts after it: the name equal to the prefix is left out. */
export class PrefixExcludesExactName extends ForwardingService {
  override async listNames(scope: Scope, options?: ListNamesOptions) {
    const page = await super.listNames(scope, options);
    const prefix = options?.prefix;
    if (!prefix) return page;
    const names = (await allNames(this.inner, scope)).filter((name) => name !== prefix);
    return pageOfNames(scope, names, options, this.capabilities().pagination.maxPageLimit);
  }
}

/** With no limit given, pages hold min(100, maxPageLimit) items (a hard-coded default). */
export class DefaultPageLimitHundred extends ForwardingService {
  #limited<T extends { limit?: number }>(options: T | undefined): T {
    const limit = Math.min(100, this.capabilities().pagination.maxPageLimit);
    return (options?.limit === undefined ? { ...options, limit } : options) as T;
  }
  override listNames(scope: Scope, options?: ListNamesOptions) {
    return super.listNames(scope, this.#limited(options));
  }
  override listVersions(scope: Scope, name: string, options?: ListVersionsOptions) {
    return super.listVersions(scope, name, this.#limited(options));
  }
}

/** With no limit given, a page of scopes holds min(100, maxPageLimit) ids. */
export class ScopePagesDefaultHundred extends ForwardingService {
  override listScopes(options?: ListScopesOptions) {
    const limit = Math.min(100, this.capabilities().pagination.maxPageLimit);
    return super.listScopes(options?.limit === undefined ? { ...options, limit } : options);
  }
}

/**
 * The first page of versions is read newest first and turned around (ORDER BY version DESC
 * LIMIT n): it holds the last n versions, and its cursor, the top one, ends the listing.
 */
export class NewestVersionsFirstPage extends ForwardingService {
  override async listVersions(
    scope: Scope,
    name: string,
    options?: ListVersionsOptions,
  ): Promise<VersionPage> {
    const page = await super.listVersions(scope, name, options);
    if (options?.cursor !== undefined || page.nextCursor === undefined) return page;
    const all = await allVersions(this.inner, scope, name);
    const items = all.slice(-page.items.length);
    return { items, nextCursor: items.at(-1)?.version ?? 0 };
  }
}

/** Pages of 64 versions or more (a batched read path) hand out a cursor one past their last. */
export class VersionCursorOffAtLargePages extends ForwardingService {
  override async listVersions(scope: Scope, name: string, options?: ListVersionsOptions) {
    const page = await super.listVersions(scope, name, options);
    const max = this.capabilities().pagination.maxPageLimit;
    const limit = Math.min(options?.limit ?? max, max);
    if (limit < 64 || page.nextCursor === undefined) return page;
    return { ...page, nextCursor: page.nextCursor + 1 };
  }
}

/** listVersions reports each version as a string of digits (a bigint column read as text). */
export class ListedVersionsAsStrings extends ForwardingService {
  override async listVersions(scope: Scope, name: string, options?: ListVersionsOptions) {
    const page = await super.listVersions(scope, name, options);
    const items = page.items.map((meta) => ({ ...meta, version: String(meta.version) }));
    return { ...page, items } as unknown as VersionPage;
  }
}

const toSeconds = (meta: ArtifactMeta): ArtifactMeta => ({
  ...meta,
  createdAt: Math.floor(meta.createdAt / 1000) * 1000,
});

/** Listings take createdAt from an object's last-modified time, to the second; reads are exact. */
export class ListingCreatedAtInSeconds extends ForwardingService {
  override async listVersions(scope: Scope, name: string, options?: ListVersionsOptions) {
    const page = await super.listVersions(scope, name, options);
    return { ...page, items: page.items.map(toSeconds) };
  }
  override async list(scope: Scope, options?: { timeoutMs?: number; signal?: AbortSignal }) {
    return (await super.list(scope, options)).map(toSeconds);
  }
}

/** The legacy list reads whole artifacts and hands their data out with the records. */
export class LegacyListCarriesData extends ForwardingService {
  override async list(scope: Scope, options?: { timeoutMs?: number; signal?: AbortSignal }) {
    const records = await super.list(scope, options);
    const whole: ArtifactMeta[] = [];
    for (const meta of records)
      whole.push(await this.inner.get(scope, meta.name, { version: meta.version }));
    return whole;
  }
}

/**
 * The names of a scope are kept in an index that a put reads, adds its name to and writes
 * back a turn later: two puts of new names at once both write, and one name is lost from
 * listNames (its versions stay readable).
 */
export class ConcurrentPutsLoseNames extends ForwardingService {
  readonly #index = new Map<string, ReadonlySet<string>>();
  readonly #put = new Set<string>();
  override async put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    const meta = await super.put(scope, name, data, options);
    this.#put.add(slotKey(scope, name));
    const key = slotKey(scope, "");
    const read = new Set(this.#index.get(key));
    await new Promise((resolve) => setImmediate(resolve));
    this.#index.set(key, read.add(name));
    return meta;
  }
  override async listNames(scope: Scope, options?: ListNamesOptions) {
    await super.listNames(scope, options);
    const indexed = this.#index.get(slotKey(scope, "")) ?? new Set();
    // Only names a put wrote go through the index; an upload's name is listed as it is.
    const names = (await allNames(this.inner, scope)).filter(
      (name) => indexed.has(name) || !this.#put.has(slotKey(scope, name)),
    );
    return pageOfNames(scope, names, options, this.capabilities().pagination.maxPageLimit);
  }
}

/** A put's new name reaches listNames a turn after the put resolved (an index written late). */
export class NameIndexLags extends ForwardingService {
  readonly #pending = new Map<string, number>();
  override async put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    const meta = await super.put(scope, name, data, options);
    const key = slotKey(scope, name);
    this.#pending.set(key, meta.version);
    setImmediate(() => {
      if (this.#pending.get(key) === meta.version) this.#pending.delete(key);
    });
    return meta;
  }
  override async listNames(scope: Scope, options?: ListNamesOptions) {
    await super.listNames(scope, options);
    const names: string[] = [];
    for (const name of await allNames(this.inner, scope)) {
      const pending = this.#pending.get(slotKey(scope, name));
      // Hidden while the put that created the name is the name's only live version.
      const versions =
        pending === undefined
          ? []
          : (await allVersions(this.inner, scope, name)).map((m) => m.version);
      if (!(versions.length === 1 && versions[0] === pending)) names.push(name);
    }
    return pageOfNames(scope, names, options, this.capabilities().pagination.maxPageLimit);
  }
}

/**
 * delete("all") lists a page of the name's versions and deletes those: a name of more than
 * a page keeps the rest.
 */
export class DeleteAllFirstPageOnly extends ForwardingService {
  override async delete(
    scope: Scope,
    name: string,
    selector: number | "latest" | "all",
    options?: { timeoutMs?: number; signal?: AbortSignal },
  ) {
    if (selector !== "all") return super.delete(scope, name, selector, options);
    const page = await this.inner.listVersions(scope, name, options);
    if (page.items.length === 0) return super.delete(scope, name, selector, options);
    for (const meta of page.items) await super.delete(scope, name, meta.version, options);
  }
}

/** The legacy list reads one page of names (maxPageLimit), then every version of those. */
export class LegacyListFirstPageOfNames extends ForwardingService {
  override async list(scope: Scope, options?: { timeoutMs?: number; signal?: AbortSignal }) {
    // The real list first, for its argument checks and its closed and deadline refusals.
    await super.list(scope, options).catch((error: unknown) => {
      if (!isArtifactError(error, "result_limit_exceeded")) throw error;
    });
    const records: ArtifactMeta[] = [];
    for (const name of (await super.listNames(scope, options)).items)
      records.push(...(await allVersions(this.inner, scope, name)));
    const { legacyListLimit } = this.capabilities().pagination;
    if (records.length > legacyListLimit)
      throw resultLimitExceeded("legacyListLimit", legacyListLimit);
    return records;
  }
}
