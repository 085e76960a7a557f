import {
  type Artifact,
  ArtifactError,
  type ArtifactMeta,
  type ArtifactService,
  type Capabilities,
  closedError,
  compareNumbers,
  compareUtf8,
  defineCapabilities,
  type GetOptions,
  type ListNamesOptions,
  type ListVersionsOptions,
  type NamePage,
  notFound,
  type PutOptions,
  pageAfter,
  parseDelete,
  parseGet,
  parseListNames,
  parseListVersions,
  parsePut,
  parseScopeRequest,
  quotaExceeded,
  quotaLimitCode,
  type RequestOptions,
  type Scope,
  scopeKey,
  sha256Hex,
  type VersionPage,
} from "@artifact-kit/core";
import {
  type MemoryArtifactServiceOptions,
  type MemoryConfig,
  resolveMemoryConfig,
} from "./config.js";
import { insertName, removeName } from "./sorted-names.js";

interface StoredVersion {
  readonly meta: ArtifactMeta;
  readonly data: Uint8Array;
}

interface NameState {
  /** Highest version ever allocated; kept after deletes so versions are never reused. */
  highWater: number;
  /** Live versions, ascending. */
  versions: StoredVersion[];
}

interface ScopeState {
  /** Names with at least one live version, in UTF-8 byte order. */
  liveNames: string[];
  names: Map<string, NameState>;
  bytes: number;
  artifacts: number;
}

const versionOf = (stored: StoredVersion) => stored.meta.version;

/**
 * Volatile artifact service in one process. Bytes are copied in and out, so neither the
 * buffer given to `put` nor the one returned by `get` can change what is stored.
 */
export class MemoryArtifactService implements ArtifactService {
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
    this.#ensureOpen();
    const request = parsePut(scope, name, data, options);
    request.deadline.check();
    const size = request.data.byteLength;
    if (size > this.#config.maxArtifactBytes) {
      throw new ArtifactError(
        "artifact_too_large",
        `artifact of ${size} bytes exceeds maxArtifactBytes`,
        {
          detail: {
            limit: quotaLimitCode("maxArtifactBytes"),
            bound: this.#config.maxArtifactBytes,
          },
        },
      );
    }
    const key = scopeKey(request.scope);
    const scopeState = this.#scopes.get(key);
    this.#checkQuotas(scopeState, size);
    const stored = new Uint8Array(request.data);
    const sha256 = sha256Hex(stored);
    request.deadline.check();

    const target = scopeState ?? this.#newScope(key);
    let nameState = target.names.get(request.name);
    if (!nameState) {
      nameState = { highWater: 0, versions: [] };
      target.names.set(request.name, nameState);
    }
    nameState.highWater += 1;
    const meta: ArtifactMeta = Object.freeze({
      scope: request.scope,
      name: request.name,
      version: nameState.highWater,
      mimeType: request.mimeType,
      size,
      sha256,
      createdAt: Date.now(),
      metadata: request.metadata,
    });
    if (nameState.versions.length === 0) insertName(target.liveNames, request.name);
    nameState.versions.push({ meta, data: stored });
    this.#account(target, size, 1);
    return meta;
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
    if (versions.length === 0) removeName(scopeState.liveNames, request.name);
  }

  async listNames(scope: Scope, options?: ListNamesOptions): Promise<NamePage> {
    this.#ensureOpen();
    const request = parseListNames(scope, options, this.#config.maxPageLimit);
    request.deadline.check();
    const liveNames = this.#scopes.get(scopeKey(request.scope))?.liveNames ?? [];
    const page = pageAfter(liveNames, request, (name) => name, compareUtf8);
    return { scope: request.scope, ...page };
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
      throw new ArtifactError(
        "result_limit_exceeded",
        `scope holds ${scopeState.artifacts} versions, more than legacyListLimit; use listNames and listVersions`,
        { detail: { limit: "legacy_list_limit", bound: this.#config.legacyListLimit } },
      );
    }
    return scopeState.liveNames.flatMap(
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

  #find(scope: Scope, name: string, options: GetOptions | undefined): StoredVersion {
    this.#ensureOpen();
    const request = parseGet(scope, name, options);
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
        throw quotaExceeded(
          quotaLimitCode(bound),
          this.#config[bound],
          `put would exceed ${bound}`,
        );
      }
    }
  }

  #newScope(key: string): ScopeState {
    const state: ScopeState = { liveNames: [], names: new Map(), bytes: 0, artifacts: 0 };
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
