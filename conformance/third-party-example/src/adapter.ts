import {
  type ArtifactMeta,
  compareUtf8,
  defineCapabilities,
  notFound,
  resultLimitExceeded,
  type Scope,
} from "@artifact-kit/core";
import {
  type AdapterHooks,
  AdapterService,
  compareNumbers,
  type DataDigest,
  idempotentVersionDeleted,
  namePage,
  newVersionRecord,
  type ParsedDelete,
  type ParsedGet,
  type ParsedListNames,
  type ParsedListScopes,
  type ParsedListVersions,
  type ParsedPublication,
  type ParsedRequest,
  pageAfter,
  pageLiveScopes,
  replayIdempotentPut,
  scopeKey,
} from "@artifact-kit/core/adapter";

interface Stored {
  highWater: number;
  live: { meta: ArtifactMeta; data: Uint8Array }[];
  /** Idempotency key -> the version it published, for good (never released). */
  keys: Map<string, number>;
}

/**
 * The backend of the smallest adapter that keeps the whole contract. Core's template
 * (`AdapterService`) has already validated every call, checked the service is open and the
 * deadline, bounded, copied and hashed the bytes; the hooks below hold only what is this
 * backend's own. It scans to list names, which is fine for an example, not for production.
 */
class MapBackend implements AdapterHooks {
  /** Scope key -> the scope and its names. */
  readonly #entries = new Map<string, { scope: Scope; names: Map<string, Stored> }>();
  readonly #legacyListLimit: number;

  constructor(legacyListLimit: number) {
    this.#legacyListLimit = legacyListLimit;
  }

  async publish(
    request: ParsedPublication,
    bytes: Uint8Array,
    digest: DataDigest,
  ): Promise<ArtifactMeta> {
    const names = this.#names(request.scope, true);
    const stored: Stored = names.get(request.name) ?? { highWater: 0, live: [], keys: new Map() };
    const key = request.idempotencyKey;
    const boundVersion = key === undefined ? undefined : stored.keys.get(key);
    if (boundVersion !== undefined) {
      // A retry: core decides the answer, and nothing is written.
      const bound = stored.live.find(({ meta }) => meta.version === boundVersion);
      if (!bound) idempotentVersionDeleted(boundVersion);
      return replayIdempotentPut(bound.meta, { ...request, ...digest });
    }
    request.deadline.check(); // the commit point
    stored.highWater += 1;
    const meta = newVersionRecord(request, digest, stored.highWater);
    if (key !== undefined) stored.keys.set(key, meta.version);
    stored.live.push({ meta, data: bytes });
    names.set(request.name, stored);
    return meta;
  }

  async read(request: ParsedGet) {
    // The stored buffer is shared: the template copies it out.
    return { ...this.#find(request), shared: true };
  }

  async readMeta(request: ParsedGet): Promise<ArtifactMeta> {
    return this.#find(request).meta;
  }

  async remove(request: ParsedDelete): Promise<void> {
    const stored = this.#names(request.scope, false)?.get(request.name);
    const before = stored?.live.length ?? 0;
    if (stored) {
      const top = stored.live.at(-1)?.meta.version;
      const doomed =
        request.selector === "all"
          ? undefined
          : request.selector === "latest"
            ? top
            : request.selector;
      stored.live =
        doomed === undefined ? [] : stored.live.filter(({ meta }) => meta.version !== doomed);
    }
    if ((stored?.live.length ?? 0) === before) throw notFound(`artifact "${request.name}"`);
  }

  async names(request: ParsedListNames) {
    // core's namePage serves the cursor and the name prefix alike.
    return { scope: request.scope, ...namePage(this.#liveNames(request.scope), request) };
  }

  async versions(request: ParsedListVersions) {
    const live = this.#names(request.scope, false)?.get(request.name)?.live ?? [];
    const page = pageAfter(live, request, ({ meta }) => meta.version, compareNumbers);
    return { ...page, items: page.items.map(({ meta }) => meta) };
  }

  async scopes(request: ParsedListScopes) {
    // Every scope holding a live version; core groups them by the level's id, sorts and pages.
    const live = [...this.#entries.values()]
      .filter(({ names }) => [...names.values()].some((stored) => stored.live.length > 0))
      .map(({ scope }) => scope);
    return pageLiveScopes(live, request, () => true);
  }

  async legacyList(request: ParsedRequest) {
    const names = this.#names(request.scope, false);
    const all = this.#liveNames(request.scope).flatMap(
      (name) => names?.get(name)?.live.map(({ meta }) => meta) ?? [],
    );
    if (all.length > this.#legacyListLimit) {
      throw resultLimitExceeded("legacyListLimit", this.#legacyListLimit);
    }
    return all;
  }

  async closeBackend(): Promise<void> {
    this.#entries.clear();
  }

  #liveNames(scope: Scope): string[] {
    return [...(this.#names(scope, false) ?? [])]
      .filter(([, stored]) => stored.live.length > 0)
      .map(([name]) => name)
      .sort(compareUtf8);
  }

  #names(scope: Scope, create: true): Map<string, Stored>;
  #names(scope: Scope, create: false): Map<string, Stored> | undefined;
  #names(scope: Scope, create: boolean): Map<string, Stored> | undefined {
    const key = scopeKey(scope);
    let entry = this.#entries.get(key);
    if (!entry && create) {
      entry = { scope, names: new Map() };
      this.#entries.set(key, entry);
    }
    return entry?.names;
  }

  #find(request: ParsedGet) {
    const live = this.#names(request.scope, false)?.get(request.name)?.live ?? [];
    const found =
      request.version === "latest"
        ? live.at(-1)
        : live.find(({ meta }) => meta.version === request.version);
    if (!found) throw notFound(`artifact "${request.name}" version ${request.version}`);
    return found;
  }
}

/** The service: core's template over the backend, with the bounds it declares. */
export class ExampleMapService extends AdapterService {
  constructor(options: { maxArtifactBytes?: number; maxPageLimit?: number } = {}) {
    const legacyListLimit = 1000;
    super(
      new MapBackend(legacyListLimit),
      defineCapabilities({
        durability: "volatile",
        maxPageLimit: options.maxPageLimit ?? 100,
        legacyListLimit,
        quotas: {
          appliesTo: "global",
          bounds: { maxArtifactBytes: options.maxArtifactBytes ?? 1024 * 1024 },
        },
      }),
    );
  }
}
