import {
  type Artifact,
  ArtifactError,
  type ArtifactMeta,
  type ArtifactService,
  type Capabilities,
  checkArtifactSize,
  closedError,
  compareNumbers,
  compareUtf8,
  type DeleteSelector,
  defineCapabilities,
  type GetOptions,
  idempotentVersionDeleted,
  type ListNamesOptions,
  type ListVersionsOptions,
  type NamePage,
  namePage,
  notFound,
  type PutOptions,
  pageAfter,
  parseDelete,
  parseGet,
  parseListNames,
  parseListVersions,
  parsePut,
  parseScopeRequest,
  type RequestOptions,
  replayIdempotentPut,
  type Scope,
  scopeKey,
  sha256Hex,
  type VersionPage,
} from "@artifact-kit/core";

interface Stored {
  highWater: number;
  live: Artifact[];
  /** Idempotency key -> the version it published, for good (never released). */
  keys: Map<string, number>;
}

/**
 * The smallest adapter that keeps the whole contract: core's parse* functions validate
 * every call, `Deadline.check()` guards the commit point, and core's paging helpers do the
 * cursors. It scans to list names, which is fine for an example and not for production.
 */
export class ExampleMapService implements ArtifactService {
  readonly #entries = new Map<string, Map<string, Stored>>();
  readonly #maxArtifactBytes: number;
  readonly #capabilities: Capabilities;
  #closed = false;

  constructor(options: { maxArtifactBytes?: number; maxPageLimit?: number } = {}) {
    this.#maxArtifactBytes = options.maxArtifactBytes ?? 1024 * 1024;
    this.#capabilities = defineCapabilities({
      durability: "volatile",
      maxPageLimit: options.maxPageLimit ?? 100,
      legacyListLimit: 1000,
      quotas: { appliesTo: "global", bounds: { maxArtifactBytes: this.#maxArtifactBytes } },
    });
  }

  capabilities(): Capabilities {
    return this.#capabilities;
  }

  async put(
    scope: Scope,
    name: string,
    data: Uint8Array,
    options?: PutOptions,
  ): Promise<ArtifactMeta> {
    this.#open();
    const request = parsePut(scope, name, data, options);
    checkArtifactSize(request.data.byteLength, this.#maxArtifactBytes);
    const bytes = new Uint8Array(request.data);
    const names = this.#names(request.scope, true);
    const stored: Stored = names.get(request.name) ?? { highWater: 0, live: [], keys: new Map() };
    const sha256 = sha256Hex(bytes);
    const key = request.idempotencyKey;
    const boundVersion = key === undefined ? undefined : stored.keys.get(key);
    if (boundVersion !== undefined) {
      // A retry: core decides the answer, and nothing is written.
      const bound = stored.live.find((artifact) => artifact.version === boundVersion);
      if (!bound) idempotentVersionDeleted(boundVersion);
      const { data: _data, ...meta } = replayIdempotentPut(bound, {
        size: bytes.byteLength,
        sha256,
        mimeType: request.mimeType,
        metadata: request.metadata,
      });
      return meta;
    }
    request.deadline.check(); // the commit point
    stored.highWater += 1;
    const meta: ArtifactMeta = {
      scope: request.scope,
      name: request.name,
      version: stored.highWater,
      mimeType: request.mimeType,
      size: bytes.byteLength,
      sha256,
      createdAt: Date.now(),
      metadata: request.metadata,
      ...(key === undefined ? {} : { idempotencyKey: key }),
    };
    if (key !== undefined) stored.keys.set(key, meta.version);
    stored.live.push({ ...meta, data: bytes });
    names.set(request.name, stored);
    return meta;
  }

  async get(scope: Scope, name: string, options?: GetOptions): Promise<Artifact> {
    const found = this.#find(scope, name, options);
    return { ...found, data: new Uint8Array(found.data) };
  }

  async head(scope: Scope, name: string, options?: GetOptions): Promise<ArtifactMeta> {
    const { data: _data, ...meta } = this.#find(scope, name, options);
    return meta;
  }

  async delete(
    scope: Scope,
    name: string,
    selector: DeleteSelector,
    options?: RequestOptions,
  ): Promise<void> {
    this.#open();
    const request = parseDelete(scope, name, selector, options);
    request.deadline.check();
    const stored = this.#names(request.scope, false)?.get(request.name);
    const before = stored?.live.length ?? 0;
    if (stored) {
      const top = stored.live.at(-1)?.version;
      const doomed =
        request.selector === "all"
          ? undefined
          : request.selector === "latest"
            ? top
            : request.selector;
      stored.live = doomed === undefined ? [] : stored.live.filter((a) => a.version !== doomed);
    }
    if ((stored?.live.length ?? 0) === before) throw notFound(`artifact "${request.name}"`);
  }

  async listNames(scope: Scope, options?: ListNamesOptions): Promise<NamePage> {
    this.#open();
    const request = parseListNames(scope, options, this.#capabilities.pagination.maxPageLimit);
    request.deadline.check();
    const names = [...(this.#names(request.scope, false) ?? [])]
      .filter(([, stored]) => stored.live.length > 0)
      .map(([name]) => name)
      .sort(compareUtf8);
    // core's namePage serves the cursor and the name prefix alike.
    return { scope: request.scope, ...namePage(names, request) };
  }

  async listVersions(
    scope: Scope,
    name: string,
    options?: ListVersionsOptions,
  ): Promise<VersionPage> {
    this.#open();
    const request = parseListVersions(
      scope,
      name,
      options,
      this.#capabilities.pagination.maxPageLimit,
    );
    request.deadline.check();
    const live = this.#names(request.scope, false)?.get(request.name)?.live ?? [];
    const page = pageAfter(live, request, (a) => a.version, compareNumbers);
    return { ...page, items: page.items.map(({ data: _data, ...meta }) => meta) };
  }

  async list(scope: Scope, options?: RequestOptions): Promise<ArtifactMeta[]> {
    this.#open();
    const request = parseScopeRequest(scope, options);
    request.deadline.check();
    const all: ArtifactMeta[] = [];
    for (let cursor: string | undefined, more = true; more; ) {
      const page = await this.listNames(request.scope, cursor === undefined ? {} : { cursor });
      for (const name of page.items) {
        for (const { data: _data, ...meta } of this.#names(request.scope, false)?.get(name)?.live ??
          [])
          all.push(meta);
      }
      cursor = page.nextCursor;
      more = cursor !== undefined;
    }
    if (all.length > this.#capabilities.pagination.legacyListLimit) {
      throw new ArtifactError(
        "result_limit_exceeded",
        "too many versions for list(); page instead",
      );
    }
    return all;
  }

  async close(): Promise<void> {
    this.#closed = true;
  }

  #open(): void {
    if (this.#closed) throw closedError();
  }

  #names(scope: Scope, create: true): Map<string, Stored>;
  #names(scope: Scope, create: false): Map<string, Stored> | undefined;
  #names(scope: Scope, create: boolean): Map<string, Stored> | undefined {
    const key = scopeKey(scope);
    let names = this.#entries.get(key);
    if (!names && create) {
      names = new Map();
      this.#entries.set(key, names);
    }
    return names;
  }

  #find(scope: Scope, name: string, options: GetOptions | undefined): Artifact {
    this.#open();
    const request = parseGet(scope, name, options);
    request.deadline.check();
    const live = this.#names(request.scope, false)?.get(request.name)?.live ?? [];
    const found =
      request.version === "latest" ? live.at(-1) : live.find((a) => a.version === request.version);
    if (!found) throw notFound(`artifact "${request.name}" version ${request.version}`);
    return found;
  }
}
