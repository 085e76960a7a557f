import {
  type Artifact,
  type ArtifactMeta,
  type ArtifactService,
  type ArtifactTransfer,
  type Capabilities,
  closedError,
  type Deadline,
  type DeleteSelector,
  type DownloadOptions,
  type DownloadSource,
  defineCapabilities,
  type GetOptions,
  invalidArgument,
  type ListNamesOptions,
  type ListScopesOptions,
  type ListVersionsOptions,
  type NamePage,
  type PutOptions,
  type RequestOptions,
  type Scope,
  type ScopePage,
  type UploadOptions,
  type UploadSink,
  type VersionPage,
} from "@artifact-kit/core";
import {
  type ParsedRequest,
  pageScopesWithNames,
  parseDelete,
  parseDownload,
  parseGet,
  parseListNames,
  parseListScopes,
  parseListVersions,
  parsePut,
  parseScopeRequest,
  parseUpload,
  type ServicePort,
} from "@artifact-kit/core/adapter";
import PQueue from "p-queue";
import { HeldDownload } from "./held-download.js";
import { OpenTransfers } from "./held-transfer.js";
import { HeldUpload } from "./held-upload.js";
import { WorkerLease } from "./lease.js";
import {
  type RouterConfig,
  type RoutingStrategy,
  resolveRouterConfig,
  type ShardedArtifactServiceOptions,
} from "./options.js";
import { type PoolStatus, WorkerPool } from "./pool.js";
import { routeKey, SHARED_SHARD, type Shard, type ShardFactory, shardOf } from "./shard.js";
import { requireDeclared } from "./transfer.js";

export interface RouterStatus extends PoolStatus {
  readonly strategy: RoutingStrategy;
  readonly maxActiveScopes: number;
  readonly maxRouterQueue: number;
  readonly idleScopeTimeoutMs: number;
  /** True only for exact-scope routing over a durable adapter. */
  readonly reclamation: boolean;
  readonly closed: boolean;
}

/**
 * An ArtifactService that routes every call to a worker (an adapter instance opened by a
 * ShardFactory): one per exact scope, or one shared by all. It validates each call itself,
 * so a bad input never opens a worker, and keeps one absolute deadline across the wait
 * for a cold route and the worker's own work. Streaming transfer is passed through to the
 * workers when their factory declares it; an open transfer keeps its worker in use.
 */
export class ShardedArtifactService implements ArtifactService, ArtifactTransfer {
  readonly #config: RouterConfig;
  readonly #capabilities: Capabilities;
  readonly #reclamation: boolean;
  readonly #pool: WorkerPool;
  readonly #factory: ShardFactory;
  readonly #transfers: OpenTransfers;
  #closed = false;

  constructor(factory: ShardFactory, options?: ShardedArtifactServiceOptions) {
    this.#config = resolveRouterConfig(options);
    const declared = factory.capabilities;
    this.#reclamation =
      this.#config.strategy === "exact_scope" && declared.durability === "durable";
    this.#capabilities = routerCapabilities(declared, this.#config, this.#reclamation);
    this.#factory = factory;
    this.#pool = new WorkerPool(factory, this.#config, this.#reclamation);
    this.#transfers = new OpenTransfers(this.#config.transferIdleTimeoutMs);
  }

  capabilities(): Capabilities {
    return this.#capabilities;
  }

  status(): RouterStatus {
    const { strategy, maxActiveScopes, maxRouterQueue, idleScopeTimeoutMs } = this.#config;
    return Object.freeze({
      strategy,
      maxActiveScopes,
      maxRouterQueue,
      idleScopeTimeoutMs,
      reclamation: this.#reclamation,
      closed: this.#closed,
      ...this.#pool.status(),
    });
  }

  async put(
    scope: Scope,
    name: string,
    data: Uint8Array,
    options?: PutOptions,
  ): Promise<ArtifactMeta> {
    this.#ensureOpen();
    const r = parsePut(scope, name, data, options);
    // A private copy before routing awaits anything: the caller may change its buffer while
    // the put is in flight, and what was passed is what must be stored.
    const bytes = new Uint8Array(r.data);
    const request = { ...r, data: bytes };
    return this.#route(request, "put", (port) => port.put(request));
  }

  async get(scope: Scope, name: string, options?: GetOptions): Promise<Artifact> {
    this.#ensureOpen();
    const r = parseGet(scope, name, options);
    return this.#route(r, "get", (port) => port.get(r));
  }

  async head(scope: Scope, name: string, options?: GetOptions): Promise<ArtifactMeta> {
    this.#ensureOpen();
    const r = parseGet(scope, name, options);
    return this.#route(r, "head", (port) => port.head(r));
  }

  async delete(
    scope: Scope,
    name: string,
    selector: DeleteSelector,
    options?: RequestOptions,
  ): Promise<void> {
    this.#ensureOpen();
    const r = parseDelete(scope, name, selector, options);
    return this.#route(r, "delete", (port) => port.delete(r));
  }

  async listNames(scope: Scope, options?: ListNamesOptions): Promise<NamePage> {
    this.#ensureOpen();
    const r = parseListNames(scope, options, this.#capabilities.pagination.maxPageLimit);
    return this.#route(r, "listNames", (port) => port.listNames(r));
  }

  async listVersions(
    scope: Scope,
    name: string,
    options?: ListVersionsOptions,
  ): Promise<VersionPage> {
    this.#ensureOpen();
    const r = parseListVersions(scope, name, options, this.#capabilities.pagination.maxPageLimit);
    return this.#route(r, "listVersions", (port) => port.listVersions(r));
  }

  async list(scope: Scope, options?: RequestOptions): Promise<ArtifactMeta[]> {
    this.#ensureOpen();
    const r = parseScopeRequest(scope, options);
    return this.#route(r, "list", (port) => port.list(r));
  }

  /**
   * Shared: the one worker's own listing. Exact scope: the live ones among every scope a
   * worker was opened for (the factory's `scopes()`, or those opened since the router
   * started), each asked for its first name through its own worker, at most maxActiveScopes
   * at once.
   */
  async listScopes(options?: ListScopesOptions): Promise<ScopePage> {
    this.#ensureOpen();
    const r = parseListScopes(options, this.#capabilities.pagination.maxPageLimit);
    if (this.#config.strategy === "shared") {
      return this.#run(
        this.#leaseShard(SHARED_SHARD.id, SHARED_SHARD, r.deadline),
        "listScopes",
        (port) => port.listScopes(r),
      );
    }
    const known = this.#factory.scopes ? await this.#factory.scopes() : this.#pool.openedScopes();
    // Each probe holds its scope's worker: no more at once than there may be workers, so that
    // at capacity a probe reclaims a worker another probe has let go of, never one in flight.
    const probes = new PQueue({ concurrency: this.#config.maxActiveScopes });
    return pageScopesWithNames(known, r, (names) =>
      probes.add(() => this.#route(names, "listNames", (port) => port.listNames(names))),
    );
  }

  /** The worker's own upload; its worker stays in use until it is published, fails or is aborted. */
  async openUpload(scope: Scope, name: string, options?: UploadOptions): Promise<UploadSink> {
    this.#ensureOpen();
    const maxArtifactBytes =
      this.#capabilities.quotas.bounds.maxArtifactBytes ?? Number.MAX_SAFE_INTEGER;
    const r = parseUpload(scope, name, options, maxArtifactBytes);
    requireDeclared(this.#capabilities, "streamingUpload");
    return this.#openTransfer(
      r,
      "upload",
      (port) => port.openUpload(r),
      (sink, lease) => new HeldUpload(sink, lease, r.deadline, this.#transfers),
    );
  }

  /** The worker's own download; its worker stays in use until it ends, fails or is cancelled. */
  async openDownload(
    scope: Scope,
    name: string,
    options?: DownloadOptions,
  ): Promise<DownloadSource> {
    this.#ensureOpen();
    const r = parseDownload(scope, name, options);
    const part = r.range === undefined ? "streamingDownload" : "byteRanges";
    requireDeclared(this.#capabilities, part);
    return this.#openTransfer(
      r,
      "download",
      (port) => port.openDownload(r),
      (source, lease) => new HeldDownload(source, lease, r.deadline, this.#transfers),
    );
  }

  /**
   * Stops every open transfer (uploads are aborted and publish nothing, downloads are
   * cancelled; their later calls fail with `closed`), then closes every worker. Later calls
   * fail with `closed`. Idempotent.
   */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#transfers.stopAll(closedError());
    await this.#pool.close();
  }

  #ensureOpen(): void {
    if (this.#closed) throw closedError();
  }

  /** Runs `call` on the request's worker, which is in use (not reclaimable) until it settles. */
  async #route<T>(
    request: ParsedRequest,
    operation: string,
    call: (port: ServicePort) => Promise<T>,
  ): Promise<T> {
    return this.#run(this.#lease(request), operation, call);
  }

  async #run<T>(
    leasing: WorkerLease | Promise<WorkerLease>,
    operation: string,
    call: (port: ServicePort) => Promise<T>,
  ): Promise<T> {
    const lease = leasing instanceof WorkerLease ? leasing : await leasing;
    try {
      return await lease.run(operation, call);
    } finally {
      lease.release();
    }
  }

  /**
   * Routes like #route, but the transfer the worker opens takes over the lease: `hold`
   * wraps it so that the worker stays in use until the transfer ends.
   */
  async #openTransfer<T>(
    request: ParsedRequest,
    operation: string,
    open: (port: ServicePort) => Promise<T>,
    hold: (opened: T, lease: WorkerLease) => T,
  ): Promise<T> {
    const leasing = this.#lease(request);
    const lease = leasing instanceof WorkerLease ? leasing : await leasing;
    let held: T;
    try {
      held = hold(await lease.run(operation, open), lease);
    } catch (error) {
      lease.release();
      throw error;
    }
    if (this.#closed) {
      // close() ran while the worker was opening it: stop it as close() stopped the others.
      await this.#transfers.stopAll(closedError());
      throw closedError();
    }
    return held;
  }

  /**
   * Leases the request's worker, with no await when it is live, so that calls on one scope
   * reach it in the order they were made; a cold route waits under the admission bounds.
   */
  #lease(request: ParsedRequest): WorkerLease | Promise<WorkerLease> {
    const { scope, deadline } = request;
    if (!this.#capabilities.scopes.includes(scope.kind)) {
      throw invalidArgument("scope.kind", `the adapter does not serve ${scope.kind} scopes`);
    }
    const { strategy } = this.#config;
    return this.#leaseShard(routeKey(strategy, scope), () => shardOf(strategy, scope), deadline);
  }

  #leaseShard(
    key: string,
    shard: Shard | (() => Shard),
    deadline: Deadline,
  ): WorkerLease | Promise<WorkerLease> {
    const shardFor = typeof shard === "function" ? shard : () => shard;
    return this.#pool.leaseHot(key) ?? this.#pool.leaseCold(key, shardFor, deadline);
  }
}

function routerCapabilities(
  worker: Capabilities,
  config: RouterConfig,
  reclamation: boolean,
): Capabilities {
  const exact = config.strategy === "exact_scope";
  return defineCapabilities({
    routing: {
      strategy: config.strategy,
      reclamation: reclamation ? "lru" : "never",
      idleScopeTimeoutMs: config.idleScopeTimeoutMs,
      transferIdleTimeoutMs: config.transferIdleTimeoutMs,
    },
    durability: worker.durability,
    maxPageLimit: worker.pagination.maxPageLimit,
    legacyListLimit: worker.pagination.legacyListLimit,
    scopes: worker.scopes,
    // Passed through part by part: the router serves exactly what its workers serve natively.
    ...(worker.transfer ? { transfer: worker.transfer } : {}),
    quotas: {
      // Exact-scope: every worker enforces the adapter's quotas for its one scope.
      appliesTo: exact ? "per_shard" : worker.quotas.appliesTo,
      bounds: {
        ...worker.quotas.bounds,
        ...(exact ? { maxActiveScopes: config.maxActiveScopes } : {}),
        maxRouterQueue: config.maxRouterQueue,
      },
    },
  });
}
