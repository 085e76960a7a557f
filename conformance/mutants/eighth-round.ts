import {
  type ArtifactMeta,
  allNames,
  allScopes,
  allVersions,
  type DeleteSelector,
  type GetOptions,
  invalidArgument,
  isArtifactError,
  type JsonValue,
  type ListNamesOptions,
  MAX_METADATA_ENTRIES,
  notFound,
  type PutOptions,
  type RequestOptions,
  type Scope,
  type UploadOptions,
  validateName,
} from "@artifact-kit/core";
import { MemoryArtifactService, type MemoryArtifactServiceOptions } from "@artifact-kit/memory";
import {
  AbortedUploadKeepsRoom,
  DeleteKeepsArtifactCount,
  HidesScopeArtifactBound,
  RefusedPutKeepsRoom,
  RetryChargesRoom,
} from "./eighth-bounds.js";
import {
  ConcurrentPutsLoseNames,
  CursorSkipsChildren,
  DefaultPageLimitHundred,
  DeleteAllFirstPageOnly,
  LegacyListCarriesData,
  LegacyListFirstPageOfNames,
  ListedVersionsAsStrings,
  ListingCreatedAtInSeconds,
  NameIndexLags,
  NamesEmptiedOneByOneListed,
  NewestVersionsFirstPage,
  PrefixExcludesExactName,
  PrefixPageEchoesCursor,
  pageOfNames,
  ScopePagesDefaultHundred,
  VersionCursorOffAtLargePages,
  WatchingService,
} from "./eighth-listings.js";
import {
  DownloadLatestIgnoresUploads,
  GatedPutNamesUnlisted,
  UploadDoesNotMoveLatest,
  UploadedNamesUnlisted,
  UploadedScopesUnlisted,
  UploadIgnoresPutKeys,
} from "./eighth-uploads.js";
import { ForwardingService, slotKey } from "./forwarding.js";
import type { Mutant } from "./index.js";

// Issue 31's eighth round: classes no earlier mutant named, as a third-party author of a
// memory, fs, SQL or object-store adapter would get them wrong, each in one place: one
// selector's or one option's own code path (delete "all", a prefix), a state the store
// remembers wrongly (a deleted version's record, an emptied scope's count, a high-water
// read as latest), a field of a reply that is not the stored one (a retry's createdAt), an
// error code for a version that never was, a declared bound left out, entries counted with
// their containers. The listings' classes are in eighth-listings.ts.

/** get and head of a version above any ever allocated are invalid_argument ("out of range"). */
export class UnallocatedVersionInvalid extends WatchingService {
  #checked(scope: Scope, name: string, options?: GetOptions) {
    const version = options?.version;
    const top = this.written.get(slotKey(scope, name))?.top ?? 0;
    if (typeof version === "number" && Number.isSafeInteger(version) && version > top)
      throw invalidArgument("version", `is above the latest version ${top}`);
  }
  override async get(scope: Scope, name: string, options?: GetOptions) {
    this.#checked(scope, name, options);
    return super.get(scope, name, options);
  }
  override async head(scope: Scope, name: string, options?: GetOptions) {
    this.#checked(scope, name, options);
    return super.head(scope, name, options);
  }
}

/** delete("all") goes through a bulk path that drops the caller's signal and timeoutMs. */
export class DeleteAllIgnoresSignal extends ForwardingService {
  override delete(scope: Scope, name: string, selector: DeleteSelector, options?: RequestOptions) {
    if (selector !== "all" || options === undefined) return super.delete(scope, name, selector);
    const { signal: _, timeoutMs: __, ...rest } = options;
    return super.delete(scope, name, selector, rest);
  }
}

/** delete("all") looks the name up without validating it: a bad name is not_found. */
export class DeleteAllSkipsNameValidation extends ForwardingService {
  override async delete(
    scope: Scope,
    name: string,
    selector: DeleteSelector,
    options?: RequestOptions,
  ) {
    if (selector === "all") {
      try {
        validateName(name);
      } catch {
        await super.listNames(scope, options);
        throw notFound(`artifact ${JSON.stringify(name)}`);
      }
    }
    return super.delete(scope, name, selector, options);
  }
}

/** listNames with a prefix is a path of its own that forgot the closed check. */
export class PrefixListingAfterClose extends WatchingService {
  #closed = false;
  override async close() {
    this.#closed = true;
    await super.close();
  }
  override async listNames(scope: Scope, options?: ListNamesOptions) {
    if (!this.#closed || options?.prefix === undefined) return super.listNames(scope, options);
    const names = [...this.written.values()]
      .filter((slot) => slotKey(slot.scope, "") === slotKey(scope, ""))
      .map((slot) => slot.name);
    return pageOfNames(scope, names, options, this.capabilities().pagination.maxPageLimit);
  }
}

/** A keyed retry answers the bound version's record stamped with the retry's own time. */
export class RetryRestampsCreatedAt extends ForwardingService {
  readonly #bound = new Set<string>();
  override async put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    const meta = await super.put(scope, name, data, options);
    const key = options?.idempotencyKey;
    if (key === undefined) return meta;
    const slot = `${slotKey(scope, name)}\n${key}\n${meta.version}`;
    if (!this.#bound.has(slot)) {
      this.#bound.add(slot);
      return meta;
    }
    return { ...meta, createdAt: Date.now() };
  }
}

/** delete("latest") deletes the name's high-water version, live or not. */
export class DeleteLatestByHighWater extends WatchingService {
  override delete(scope: Scope, name: string, selector: DeleteSelector, options?: RequestOptions) {
    const top = this.written.get(slotKey(scope, name))?.top;
    if (selector !== "latest" || top === undefined)
      return super.delete(scope, name, selector, options);
    return super.delete(scope, name, top, options);
  }
}

/** head of a version deleted by number answers the record it had (a soft delete head forgets). */
export class HeadSeesDeletedVersions extends ForwardingService {
  readonly #deleted = new Map<string, ArtifactMeta>();
  override async delete(
    scope: Scope,
    name: string,
    selector: DeleteSelector,
    options?: RequestOptions,
  ) {
    const record =
      typeof selector === "number"
        ? await this.inner.head(scope, name, { version: selector }).catch(() => undefined)
        : undefined;
    await super.delete(scope, name, selector, options);
    if (record !== undefined) this.#deleted.set(`${slotKey(scope, name)}\n${selector}`, record);
  }
  override async head(scope: Scope, name: string, options?: GetOptions) {
    try {
      return await super.head(scope, name, options);
    } catch (error) {
      const record = this.#deleted.get(`${slotKey(scope, name)}\n${String(options?.version)}`);
      if (record === undefined || !isArtifactError(error, "not_found")) throw error;
      return structuredClone(record);
    }
  }
}

/** A delete of a name that was never written succeeds (an object store's delete of no key). */
export class DeleteOfUnknownNameSucceeds extends WatchingService {
  override async delete(
    scope: Scope,
    name: string,
    selector: DeleteSelector,
    options?: RequestOptions,
  ) {
    try {
      await super.delete(scope, name, selector, options);
    } catch (error) {
      if (!isArtifactError(error, "not_found") || this.written.has(slotKey(scope, name)))
        throw error;
    }
  }
}

/** Metadata entries counted with every nested map and list as one more: valid metadata refused. */
export class CountsContainersAsEntries extends ForwardingService {
  static #count(value: JsonValue | undefined): number {
    if (value === null || typeof value !== "object") return 0;
    const items = Array.isArray(value) ? value : Object.values(value);
    return items.reduce<number>(
      (sum, item) =>
        sum +
        1 +
        (item !== null && typeof item === "object" ? 1 : 0) +
        CountsContainersAsEntries.#count(item),
      0,
    );
  }
  static #check(options: PutOptions | UploadOptions | undefined) {
    const metadata = options?.metadata;
    if (metadata === null || typeof metadata !== "object") return;
    if (CountsContainersAsEntries.#count(metadata) > MAX_METADATA_ENTRIES)
      throw invalidArgument("metadata", `has more than ${MAX_METADATA_ENTRIES} entries`);
  }
  override async put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    CountsContainersAsEntries.#check(options);
    return super.put(scope, name, data, options);
  }
  override async openUpload(scope: Scope, name: string, options?: UploadOptions) {
    CountsContainersAsEntries.#check(options);
    return super.openUpload(scope, name, options);
  }
}

/** Latest is the highest live version that holds data: a 0-byte top is passed over. */
export class LatestSkipsEmptyVersions extends ForwardingService {
  async #pinned(scope: Scope, name: string, options?: GetOptions): Promise<GetOptions | undefined> {
    if (options?.version !== undefined && options.version !== "latest") return options;
    const nonEmpty = (await allVersions(this.inner, scope, name)).filter((meta) => meta.size > 0);
    const top = nonEmpty.at(-1);
    return top === undefined ? options : { ...options, version: top.version };
  }
  override async get(scope: Scope, name: string, options?: GetOptions) {
    return super.get(scope, name, await this.#pinned(scope, name, options));
  }
  override async head(scope: Scope, name: string, options?: GetOptions) {
    return super.head(scope, name, await this.#pinned(scope, name, options));
  }
}

/** head takes only a version number: version "latest" given explicitly is invalid_argument. */
export class HeadRefusesExplicitLatest extends ForwardingService {
  override async head(scope: Scope, name: string, options?: GetOptions) {
    if (options?.version === "latest")
      throw invalidArgument("version", "must be a positive integer");
    return super.head(scope, name, options);
  }
}

/**
 * delete("all") only marks the name deleted; the next put clears the mark, and the versions
 * it hid are live again.
 */
export class DeleteAllResurrectedByPut extends ForwardingService {
  readonly #hidden = new Map<string, { data: Uint8Array; meta: ArtifactMeta }[]>();
  override async delete(
    scope: Scope,
    name: string,
    selector: DeleteSelector,
    options?: RequestOptions,
  ) {
    const hidden: { data: Uint8Array; meta: ArtifactMeta }[] = [];
    if (selector === "all") {
      for (const meta of await allVersions(this.inner, scope, name).catch(() => []))
        hidden.push({
          data: (await this.inner.get(scope, name, { version: meta.version })).data,
          meta,
        });
    }
    await super.delete(scope, name, selector, options);
    if (hidden.length > 0) this.#hidden.set(slotKey(scope, name), hidden);
  }
  override async put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    const key = slotKey(scope, name);
    const hidden = this.#hidden.get(key);
    if (hidden === undefined) return super.put(scope, name, data, options);
    this.#hidden.delete(key);
    // The hidden versions come back (as new versions: the memory store cannot reuse numbers).
    for (const { data: bytes, meta } of hidden)
      await super.put(scope, name, bytes, { mimeType: meta.mimeType, metadata: meta.metadata });
    return super.put(scope, name, data, options);
  }
}

/** listNames of a user scope scans its key prefix: its sessions' names are listed too. */
export class ListNamesIncludesSessionNames extends ForwardingService {
  override async listNames(scope: Scope, options?: ListNamesOptions) {
    const page = await super.listNames(scope, options);
    if (scope.kind !== "user") return page;
    const names = await allNames(this.inner, scope);
    const sessions = await allScopes(this.inner, {
      kind: "session",
      app: scope.app,
      user: scope.user,
    });
    for (const session of sessions) names.push(...(await allNames(this.inner, session)));
    return pageOfNames(page.scope, names, options, this.capabilities().pagination.maxPageLimit);
  }
}

/** listNames of a scope with nothing live fails not_found (a missing directory's ENOENT). */
export class EmptyScopeListingNotFound extends ForwardingService {
  override async listNames(scope: Scope, options?: ListNamesOptions) {
    const page = await super.listNames(scope, options);
    if (page.items.length === 0 && options?.cursor === undefined && options?.prefix === undefined)
      throw notFound("scope");
    return page;
  }
}

const memory = (options?: MemoryArtifactServiceOptions) => new MemoryArtifactService(options);

export const EIGHTH_ROUND_MUTANTS: readonly Mutant[] = [
  {
    name: "a prefix page past the prefix's names hands its cursor back",
    make: (o) => new PrefixPageEchoesCursor(memory(o)),
  },
  {
    name: "lists a name whose versions were deleted one by one",
    make: (o) => new NamesEmptiedOneByOneListed(memory(o)),
  },
  {
    name: "a name cursor skips the names under it",
    make: (o) => new CursorSkipsChildren(memory(o)),
  },
  {
    name: "a prefix leaves out the name equal to it",
    make: (o) => new PrefixExcludesExactName(memory(o)),
  },
  {
    name: "pages default to 100 items",
    make: (o) => new DefaultPageLimitHundred(memory(o)),
  },
  {
    name: "pages of scopes default to 100 ids",
    make: (o) => new ScopePagesDefaultHundred(memory(o)),
  },
  {
    name: "the first page of versions holds the newest",
    make: (o) => new NewestVersionsFirstPage(memory(o)),
  },
  {
    name: "a version cursor one past the page at 64 items or more",
    make: (o) => new VersionCursorOffAtLargePages(memory(o)),
  },
  {
    name: "listVersions reports versions as strings",
    make: (o) => new ListedVersionsAsStrings(memory(o)),
  },
  {
    name: "listings report createdAt to the second",
    make: (o) => new ListingCreatedAtInSeconds(memory(o)),
  },
  {
    name: "the legacy list carries data",
    make: (o) => new LegacyListCarriesData(memory(o)),
  },
  {
    name: "two puts of new names at once lose one from listNames",
    make: (o) => new ConcurrentPutsLoseNames(memory(o)),
  },
  {
    name: "a new name reaches listNames a turn after its put",
    make: (o) => new NameIndexLags(memory(o)),
  },
  {
    name: "a version above the high-water is invalid_argument",
    make: (o) => new UnallocatedVersionInvalid(memory(o)),
  },
  {
    name: 'delete("all") ignores the signal',
    make: (o) => new DeleteAllIgnoresSignal(memory(o)),
  },
  {
    name: 'delete("all") does not validate the name',
    make: (o) => new DeleteAllSkipsNameValidation(memory(o)),
  },
  {
    name: "listNames with a prefix answers after close()",
    make: (o) => new PrefixListingAfterClose(memory(o)),
  },
  {
    name: "a keyed retry restamps createdAt",
    make: (o) => new RetryRestampsCreatedAt(memory(o)),
  },
  {
    name: "capabilities() hides maxScopeArtifacts",
    make: (o) => new HidesScopeArtifactBound(memory(o)),
  },
  {
    name: 'delete("all") keeps the scope\'s artifact count',
    make: (o) => new DeleteKeepsArtifactCount(memory(o), o, (selector) => selector === "all"),
  },
  {
    name: 'delete("latest") deletes the high-water version',
    make: (o) => new DeleteLatestByHighWater(memory(o)),
  },
  {
    name: "head answers a version deleted by number",
    make: (o) => new HeadSeesDeletedVersions(memory(o)),
  },
  {
    name: "a delete of a never-written name succeeds",
    make: (o) => new DeleteOfUnknownNameSucceeds(memory(o)),
  },
  {
    name: "counts metadata containers as entries",
    make: (o) => new CountsContainersAsEntries(memory(o)),
  },
  {
    name: "latest passes over a 0-byte top version",
    make: (o) => new LatestSkipsEmptyVersions(memory(o)),
  },
  {
    name: 'head refuses an explicit version "latest"',
    make: (o) => new HeadRefusesExplicitLatest(memory(o)),
  },
  {
    name: 'a put brings back the versions delete("all") removed',
    make: (o) => new DeleteAllResurrectedByPut(memory(o)),
  },
  {
    name: "listNames of a user scope lists its sessions' names",
    make: (o) => new ListNamesIncludesSessionNames(memory(o)),
  },
  {
    name: "listNames of an empty scope is not_found",
    make: (o) => new EmptyScopeListingNotFound(memory(o)),
  },
  {
    name: "a keyed retry takes room it never gives back",
    make: (o) => new RetryChargesRoom(memory(o), o),
  },
  {
    name: 'delete("all") deletes the first page of versions only',
    make: (o) => new DeleteAllFirstPageOnly(memory(o)),
  },
  {
    name: "the legacy list reads one page of names",
    make: (o) => new LegacyListFirstPageOfNames(memory(o)),
  },
  {
    name: "a delete by number keeps the scope's artifact count",
    make: (o) =>
      new DeleteKeepsArtifactCount(memory(o), o, (selector) => typeof selector === "number"),
  },
  {
    name: "a put refused as invalid keeps the room it reserved",
    make: (o) => new RefusedPutKeepsRoom(memory(o), o),
  },
  {
    name: "an aborted upload keeps the room of what it staged",
    make: (o) => new AbortedUploadKeepsRoom(memory(o), o),
  },
  {
    name: "a name only uploads wrote is not listed",
    make: (o) => new UploadedNamesUnlisted(memory(o)),
  },
  {
    name: "a scope only uploads wrote is not listed",
    make: (o) => new UploadedScopesUnlisted(memory(o)),
  },
  {
    name: "an uploaded version does not become latest",
    make: (o) => new UploadDoesNotMoveLatest(memory(o)),
  },
  {
    name: "a download of latest passes over uploaded versions",
    make: (o) => new DownloadLatestIgnoresUploads(memory(o)),
  },
  {
    name: "a gated put's new name is not listed",
    make: (o) => new GatedPutNamesUnlisted(memory(o)),
  },
  {
    name: "an upload ignores keys a put bound",
    make: (o) => new UploadIgnoresPutKeys(memory(o)),
  },
];
