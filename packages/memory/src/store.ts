import {
  type ArtifactMeta,
  type NamePage,
  notFound,
  quotaExceeded,
  resultLimitExceeded,
  type Scope,
  type ScopePage,
  type VersionPage,
} from "@artifact-kit/core";
import {
  type AdapterHooks,
  compareNumbers,
  type DataDigest,
  idempotentVersionDeleted,
  newVersionRecord,
  type ParsedDelete,
  type ParsedGet,
  type ParsedListNames,
  type ParsedListScopes,
  type ParsedListVersions,
  type ParsedPublication,
  type ParsedRequest,
  type ParsedUpload,
  pageAfter,
  pageLiveScopes,
  replayIdempotentPut,
  type StoredArtifact,
  type StoredDownload,
  scopeKey,
  TRANSFER_BLOCK_BYTES,
  type UploadTarget,
} from "@artifact-kit/core/adapter";
import type { MemoryConfig } from "./config.js";
import { SortedNames } from "./sorted-names.js";

interface StoredVersion {
  readonly meta: ArtifactMeta;
  readonly data: Uint8Array;
  /** Block digests, so that ranged reads verify what they serve like whole reads could. */
  readonly blocks: readonly string[];
}

interface NameState {
  /** Highest version ever allocated; kept after deletes so versions are never reused. */
  highWater: number;
  /** Live versions, ascending. */
  versions: StoredVersion[];
  /** Idempotency key -> the version it published; kept after deletes, like the high-water. */
  keys: Map<string, number>;
}

interface ScopeState {
  readonly scope: Scope;
  /** Names with at least one live version, in UTF-8 byte order. */
  liveNames: SortedNames;
  names: Map<string, NameState>;
  bytes: number;
  artifacts: number;
}

const versionOf = (stored: StoredVersion) => stored.meta.version;

/**
 * The memory adapter's backend: every scope's versions in maps, under global and per-scope
 * quotas. The template has parsed, bounded, copied and digested what reaches it. The hooks
 * answer synchronously (no I/O), so a call costs the template's one promise and no more.
 */
export class MemoryStore implements AdapterHooks {
  readonly #config: MemoryConfig;
  readonly #scopes = new Map<string, ScopeState>();
  #totalBytes = 0;
  #totalArtifacts = 0;

  constructor(config: MemoryConfig) {
    this.#config = config;
  }

  /** Live bytes and live versions over every scope. */
  usage(): { readonly totalBytes: number; readonly totalArtifacts: number } {
    return { totalBytes: this.#totalBytes, totalArtifacts: this.#totalArtifacts };
  }

  publish(request: ParsedPublication, bytes: Uint8Array, digest: DataDigest): ArtifactMeta {
    const replayed = this.#replay(request, digest);
    if (replayed) return replayed;
    this.#checkQuotas(this.#scopes.get(scopeKey(request.scope)), digest.size);
    request.deadline.check();
    return this.#publish(request, bytes, digest);
  }

  async beginUpload(request: ParsedUpload): Promise<UploadTarget> {
    const chunks: Uint8Array[] = [];
    let gathered = 0;
    return {
      write: async (chunk) => {
        // Quotas are checked as the chunks arrive, so an upload that cannot fit fails early;
        // a retry under a bound key is answered by its key at publish, however full the scope.
        if (!this.#keyIsBound(request)) {
          this.#checkQuotas(this.#scopes.get(scopeKey(request.scope)), gathered + chunk.byteLength);
        }
        // The chunk is only lent: keep a copy.
        chunks.push(new Uint8Array(chunk));
        gathered += chunk.byteLength;
      },
      publish: async (digest, deadline) => {
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
    };
  }

  read(request: ParsedGet): StoredArtifact {
    const stored = this.#lookup(request);
    return { meta: stored.meta, data: stored.data, shared: true };
  }

  readMeta(request: ParsedGet): ArtifactMeta {
    return this.#lookup(request).meta;
  }

  download(request: ParsedGet): StoredDownload {
    const stored = this.#lookup(request);
    return {
      meta: stored.meta,
      blocks: stored.blocks,
      // One copy per block: what is handed out must never be a view of the stored bytes.
      read: async function* (start, end) {
        for (let at = start; at < end; at += TRANSFER_BLOCK_BYTES) {
          yield stored.data.slice(at, Math.min(end, at + TRANSFER_BLOCK_BYTES));
        }
      },
    };
  }

  remove(request: ParsedDelete): void {
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

  names(request: ParsedListNames): NamePage {
    const liveNames = this.#scopes.get(scopeKey(request.scope))?.liveNames;
    return { scope: request.scope, ...(liveNames?.page(request) ?? { items: [] }) };
  }

  versions(request: ParsedListVersions): VersionPage {
    const versions =
      this.#scopes.get(scopeKey(request.scope))?.names.get(request.name)?.versions ?? [];
    const page = pageAfter(versions, request, versionOf, compareNumbers);
    return { ...page, items: page.items.map((stored) => stored.meta) };
  }

  scopes(request: ParsedListScopes): Promise<ScopePage> {
    const live = [...this.#scopes.values()].filter((state) => state.artifacts > 0);
    return pageLiveScopes(
      live.map((state) => state.scope),
      request,
      () => true,
    );
  }

  legacyList(request: ParsedRequest): ArtifactMeta[] {
    const scopeState = this.#scopes.get(scopeKey(request.scope));
    if (!scopeState) return [];
    if (scopeState.artifacts > this.#config.legacyListLimit) {
      throw resultLimitExceeded("legacyListLimit", this.#config.legacyListLimit);
    }
    return [...scopeState.liveNames].flatMap(
      (name) => scopeState.names.get(name)?.versions.map((stored) => stored.meta) ?? [],
    );
  }

  async closeBackend(): Promise<void> {
    this.#scopes.clear();
    this.#totalBytes = 0;
    this.#totalArtifacts = 0;
  }

  /** True when the publication's idempotency key already published in its (scope, name). */
  #keyIsBound(publication: ParsedPublication): boolean {
    const key = publication.idempotencyKey;
    if (key === undefined) return false;
    const nameState = this.#scopes.get(scopeKey(publication.scope))?.names.get(publication.name);
    return nameState?.keys.has(key) ?? false;
  }

  /** The answer to a put whose idempotency key is already bound here, or undefined. */
  #replay(publication: ParsedPublication, digest: DataDigest): ArtifactMeta | undefined {
    if (publication.idempotencyKey === undefined) return undefined;
    const nameState = this.#scopes.get(scopeKey(publication.scope))?.names.get(publication.name);
    const version = nameState?.keys.get(publication.idempotencyKey);
    if (nameState === undefined || version === undefined) return undefined;
    const bound = nameState.versions[this.#indexOf(nameState.versions, version)];
    if (!bound) idempotentVersionDeleted(version);
    return replayIdempotentPut(bound.meta, { ...publication, ...digest });
  }

  /** Allocates the next version and makes it visible: the commit point of put and upload. */
  #publish(publication: ParsedPublication, data: Uint8Array, digest: DataDigest): ArtifactMeta {
    const key = scopeKey(publication.scope);
    const target = this.#scopes.get(key) ?? this.#newScope(key, publication.scope);
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

  #lookup(request: ParsedGet): StoredVersion {
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

  #newScope(key: string, scope: Scope): ScopeState {
    const state: ScopeState = {
      scope,
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
