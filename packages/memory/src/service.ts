import {
  type Artifact,
  type ArtifactMeta,
  type ArtifactService,
  type ArtifactTransfer,
  type Capabilities,
  checkArtifactSize,
  closedError,
  compareNumbers,
  type DataDigest,
  type Deadline,
  type DownloadOptions,
  type DownloadSource,
  defineCapabilities,
  digestData,
  type GetOptions,
  idempotentVersionDeleted,
  type ListNamesOptions,
  type ListVersionsOptions,
  type NamePage,
  newVersionRecord,
  notFound,
  type ParsedContent,
  type ParsedGet,
  type PutOptions,
  pageAfter,
  parseDelete,
  parseDownload,
  parseGet,
  parseListNames,
  parseListVersions,
  parsePut,
  parseScopeRequest,
  parseUpload,
  quotaExceeded,
  type RequestOptions,
  replayIdempotentPut,
  resolveRange,
  resultLimitExceeded,
  type Scope,
  scopeKey,
  TRANSFER_BLOCK_BYTES,
  type UploadOptions,
  type UploadSink,
  uploadSink,
  type VersionPage,
  verifiedSource,
} from "@artifact-kit/core";
import {
  type MemoryArtifactServiceOptions,
  type MemoryConfig,
  resolveMemoryConfig,
} from "./config.js";
import { SortedNames } from "./sorted-names.js";

interface StoredVersion {
  readonly meta: ArtifactMeta;
  readonly data: Uint8Array;
  /** Block digests, so that ranged reads verify what they serve like whole reads could. */
  readonly blocks: readonly string[];
}

/** What a publication stores, from a put or a finished upload. */
type Publication = ParsedContent & { readonly scope: Scope; readonly name: string };

interface NameState {
  /** Highest version ever allocated; kept after deletes so versions are never reused. */
  highWater: number;
  /** Live versions, ascending. */
  versions: StoredVersion[];
  /** Idempotency key -> the version it published; kept after deletes, like the high-water. */
  keys: Map<string, number>;
}

interface ScopeState {
  /** Names with at least one live version, in UTF-8 byte order. */
  liveNames: SortedNames;
  names: Map<string, NameState>;
  bytes: number;
  artifacts: number;
}

const versionOf = (stored: StoredVersion) => stored.meta.version;

export interface MemoryStatus {
  readonly closed: boolean;
  /** Live bytes and live versions over every scope, against maxTotalBytes / maxTotalArtifacts. */
  readonly quotaUsage: { readonly maxTotalBytes: number; readonly maxTotalArtifacts: number };
}

/**
 * Volatile artifact service in one process. Bytes are copied in and out, so neither the
 * buffer given to `put` nor the one returned by `get` can change what is stored. Streaming
 * uploads gather their chunks under the same quotas; downloads and byte ranges are served
 * block by block, verified against the block digests recorded at publication.
 */
export class MemoryArtifactService implements ArtifactService, ArtifactTransfer {
  readonly #config: MemoryConfig;
  readonly #capabilities: Capabilities;
  readonly #scopes = new Map<string, ScopeState>();
  #totalBytes = 0;
  #totalArtifacts = 0;
  #closed = false;

  constructor(options?: MemoryArtifactServiceOptions) {
    this.#config = resolveMemoryConfig(options);
    const { maxPageLimit, legacyListLimit, ...bounds } = this.#config;
    this.#capabilities = defineCapabilities({
      durability: "volatile",
      maxPageLimit,
      legacyListLimit,
      quotas: { appliesTo: "global", bounds },
      transfer: { streamingUpload: true, streamingDownload: true, byteRanges: true },
    });
  }

  capabilities(): Capabilities {
    return this.#capabilities;
  }

  /**
   * How much of the service-wide bounds is used, keyed by the bound's name in
   * `capabilities().quotas.bounds`, for monitoring (e.g. `@artifact-kit/otel`'s
   * `artifact.quota.usage`). Per-scope bounds have one usage per scope and are not reported.
   */
  status(): MemoryStatus {
    return Object.freeze({
      closed: this.#closed,
      quotaUsage: Object.freeze({
        maxTotalBytes: this.#totalBytes,
        maxTotalArtifacts: this.#totalArtifacts,
      }),
    });
  }

  async put(
    scope: Scope,
    name: string,
    data: Uint8Array,
    options?: PutOptions,
  ): Promise<ArtifactMeta> {
    this.#ensureOpen();
    const request = parsePut(scope, name, data, options);
    request.deadline.check();
    const size = request.data.byteLength;
    checkArtifactSize(size, this.#config.maxArtifactBytes);
    const stored = new Uint8Array(request.data);
    const digest = digestData(stored);
    const replayed = this.#replay(request, digest);
    if (replayed) return replayed;
    this.#checkQuotas(this.#scopes.get(scopeKey(request.scope)), size);
    request.deadline.check();
    return this.#publish(request, stored, digest);
  }

  async openUpload(scope: Scope, name: string, options?: UploadOptions): Promise<UploadSink> {
    this.#ensureOpen();
    const request = parseUpload(scope, name, options, this.#config.maxArtifactBytes);
    request.deadline.check();
    const chunks: Uint8Array[] = [];
    let gathered = 0;
    return uploadSink(request, {
      write: async (chunk) => {
        this.#ensureOpen();
        // Quotas are checked as the chunks arrive, so an upload that cannot fit fails early.
        this.#checkQuotas(this.#scopes.get(scopeKey(request.scope)), gathered + chunk.byteLength);
        // The chunk is only lent: keep a copy.
        chunks.push(new Uint8Array(chunk));
        gathered += chunk.byteLength;
      },
      publish: async (digest: DataDigest, deadline: Deadline) => {
        this.#ensureOpen();
        const replayed = this.#replay(request, digest);
        if (replayed) return replayed;
        this.#checkQuotas(this.#scopes.get(scopeKey(request.scope)), digest.size);
        const data = new Uint8Array(digest.size);
        let at = 0;
        for (const chunk of chunks.splice(0)) {
          data.set(chunk, at);
          at += chunk.byteLength;
        }
        deadline.check();
        return this.#publish(request, data, digest);
      },
      discard: async () => {
        chunks.length = 0;
      },
    });
  }

  async openDownload(
    scope: Scope,
    name: string,
    options?: DownloadOptions,
  ): Promise<DownloadSource> {
    this.#ensureOpen();
    const request = parseDownload(scope, name, options);
    const stored = this.#lookup(request);
    const range = resolveRange(request.range, stored.meta.size);
    return verifiedSource({
      meta: stored.meta,
      blocks: stored.blocks,
      range,
      deadline: request.deadline,
      // One copy per block: what is handed out must never be a view of the stored bytes.
      read: async function* (start, end) {
        for (let at = start; at < end; at += TRANSFER_BLOCK_BYTES) {
          yield stored.data.slice(at, Math.min(end, at + TRANSFER_BLOCK_BYTES));
        }
      },
    });
  }

  async get(scope: Scope, name: string, options?: GetOptions): Promise<Artifact> {
    const stored = this.#find(scope, name, options);
    return Object.freeze({ ...stored.meta, data: new Uint8Array(stored.data) });
  }

  async head(scope: Scope, name: string, options?: GetOptions): Promise<ArtifactMeta> {
    return this.#find(scope, name, options).meta;
  }

  async delete(
    scope: Scope,
    name: string,
    selector: number | "latest" | "all",
    options?: RequestOptions,
  ) {
    this.#ensureOpen();
    const request = parseDelete(scope, name, selector, options);
    request.deadline.check();
    const scopeState = this.#scopes.get(scopeKey(request.scope));
    const versions = scopeState?.names.get(request.name)?.versions ?? [];
    const removed = versions.splice(...this.#deleteRange(versions, request.selector));
    if (!scopeState || removed.length === 0) {
      throw notFound(`artifact "${request.name}" (${request.selector})`);
    }
    const bytes = removed.reduce((sum, stored) => sum + stored.meta.size, 0);
    this.#account(scopeState, -bytes, -removed.length);
    if (versions.length === 0) scopeState.liveNames.remove(request.name);
  }

  async listNames(scope: Scope, options?: ListNamesOptions): Promise<NamePage> {
    this.#ensureOpen();
    const request = parseListNames(scope, options, this.#config.maxPageLimit);
    request.deadline.check();
    const liveNames = this.#scopes.get(scopeKey(request.scope))?.liveNames;
    return { scope: request.scope, ...(liveNames?.page(request) ?? { items: [] }) };
  }

  async listVersions(
    scope: Scope,
    name: string,
    options?: ListVersionsOptions,
  ): Promise<VersionPage> {
    this.#ensureOpen();
    const request = parseListVersions(scope, name, options, this.#config.maxPageLimit);
    request.deadline.check();
    const versions =
      this.#scopes.get(scopeKey(request.scope))?.names.get(request.name)?.versions ?? [];
    const page = pageAfter(versions, request, versionOf, compareNumbers);
    return { ...page, items: page.items.map((stored) => stored.meta) };
  }

  async list(scope: Scope, options?: RequestOptions): Promise<ArtifactMeta[]> {
    this.#ensureOpen();
    const request = parseScopeRequest(scope, options);
    request.deadline.check();
    const scopeState = this.#scopes.get(scopeKey(request.scope));
    if (!scopeState) return [];
    if (scopeState.artifacts > this.#config.legacyListLimit) {
      throw resultLimitExceeded("legacyListLimit", this.#config.legacyListLimit);
    }
    return [...scopeState.liveNames].flatMap(
      (name) => scopeState.names.get(name)?.versions.map((stored) => stored.meta) ?? [],
    );
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#scopes.clear();
    this.#totalBytes = 0;
    this.#totalArtifacts = 0;
  }

  #ensureOpen(): void {
    if (this.#closed) throw closedError();
  }

  /** The answer to a put whose idempotency key is already bound here, or undefined. */
  #replay(publication: Publication, digest: DataDigest): ArtifactMeta | undefined {
    if (publication.idempotencyKey === undefined) return undefined;
    const nameState = this.#scopes.get(scopeKey(publication.scope))?.names.get(publication.name);
    const version = nameState?.keys.get(publication.idempotencyKey);
    if (nameState === undefined || version === undefined) return undefined;
    const bound = nameState.versions[this.#indexOf(nameState.versions, version)];
    if (!bound) idempotentVersionDeleted(version);
    return replayIdempotentPut(bound.meta, { ...publication, ...digest });
  }

  /** Allocates the next version and makes it visible: the commit point of put and upload. */
  #publish(publication: Publication, data: Uint8Array, digest: DataDigest): ArtifactMeta {
    const key = scopeKey(publication.scope);
    const target = this.#scopes.get(key) ?? this.#newScope(key);
    let nameState = target.names.get(publication.name);
    if (!nameState) {
      nameState = { highWater: 0, versions: [], keys: new Map() };
      target.names.set(publication.name, nameState);
    }
    nameState.highWater += 1;
    const meta = newVersionRecord(publication, digest, nameState.highWater);
    if (publication.idempotencyKey !== undefined) {
      nameState.keys.set(publication.idempotencyKey, meta.version);
    }
    if (nameState.versions.length === 0) target.liveNames.insert(publication.name);
    nameState.versions.push({ meta, data, blocks: digest.blocks });
    this.#account(target, digest.size, 1);
    return meta;
  }

  #find(scope: Scope, name: string, options: GetOptions | undefined): StoredVersion {
    this.#ensureOpen();
    return this.#lookup(parseGet(scope, name, options));
  }

  #lookup(request: ParsedGet): StoredVersion {
    request.deadline.check();
    const versions =
      this.#scopes.get(scopeKey(request.scope))?.names.get(request.name)?.versions ?? [];
    const stored =
      request.version === "latest"
        ? versions[versions.length - 1]
        : versions[this.#indexOf(versions, request.version)];
    if (!stored) throw notFound(`artifact "${request.name}" version ${request.version}`);
    return stored;
  }

  /** [start, count] of the live versions a delete selector removes (count 0: none). */
  #deleteRange(
    versions: readonly StoredVersion[],
    selector: number | "latest" | "all",
  ): [number, number] {
    if (selector === "all") return [0, versions.length];
    if (selector === "latest") return [Math.max(0, versions.length - 1), 1];
    const index = this.#indexOf(versions, selector);
    return index < 0 ? [0, 0] : [index, 1];
  }

  /** Index of `version` in ascending `versions`, or -1 (binary search). */
  #indexOf(versions: readonly StoredVersion[], version: number): number {
    let low = 0;
    let high = versions.length - 1;
    while (low <= high) {
      const mid = (low + high) >>> 1;
      const found = (versions[mid] as StoredVersion).meta.version;
      if (found === version) return mid;
      if (found < version) low = mid + 1;
      else high = mid - 1;
    }
    return -1;
  }

  #checkQuotas(scopeState: ScopeState | undefined, size: number): void {
    const checks: [keyof MemoryConfig, number][] = [
      ["maxScopeBytes", (scopeState?.bytes ?? 0) + size],
      ["maxTotalBytes", this.#totalBytes + size],
      ["maxScopeArtifacts", (scopeState?.artifacts ?? 0) + 1],
      ["maxTotalArtifacts", this.#totalArtifacts + 1],
    ];
    for (const [bound, wouldBe] of checks) {
      if (wouldBe > this.#config[bound]) {
        throw quotaExceeded(bound, this.#config[bound], `put would exceed ${bound}`);
      }
    }
  }

  #newScope(key: string): ScopeState {
    const state: ScopeState = {
      liveNames: new SortedNames(),
      names: new Map(),
      bytes: 0,
      artifacts: 0,
    };
    this.#scopes.set(key, state);
    return state;
  }

  #account(scopeState: ScopeState, bytes: number, artifacts: number): void {
    scopeState.bytes += bytes;
    scopeState.artifacts += artifacts;
    this.#totalBytes += bytes;
    this.#totalArtifacts += artifacts;
  }
}
