import {
  type Artifact,
  type ArtifactMeta,
  type ArtifactService,
  asArtifactError,
  type Capabilities,
  closedError,
  type Deadline,
  type DeleteSelector,
  defineCapabilities,
  type GetOptions,
  invalidArgument,
  type ListNamesOptions,
  type ListVersionsOptions,
  type NamePage,
  type ParsedRequest,
  type PutOptions,
  parseDelete,
  parseGet,
  parseListNames,
  parseListVersions,
  parsePut,
  parseScopeRequest,
  type RequestOptions,
  type Scope,
  type VersionPage,
} from "@artifact-kit/core";
import {
  type RouterConfig,
  type RoutingStrategy,
  resolveRouterConfig,
  type ShardedArtifactServiceOptions,
} from "./options.js";
import { type PoolStatus, WorkerPool } from "./pool.js";
import { routeKey, type ShardFactory, shardOf } from "./shard.js";

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
 * for a cold route and the worker's own work.
 */
export class ShardedArtifactService implements ArtifactService {
  readonly #config: RouterConfig;
  readonly #capabilities: Capabilities;
  readonly #reclamation: boolean;
  readonly #pool: WorkerPool;
  #closed = false;

  constructor(factory: ShardFactory, options?: ShardedArtifactServiceOptions) {
    this.#config = resolveRouterConfig(options);
    const declared = factory.capabilities;
    this.#reclamation =
      this.#config.strategy === "exact_scope" && declared.durability === "durable";
    this.#capabilities = routerCapabilities(declared, this.#config);
    this.#pool = new WorkerPool(factory, this.#config, this.#reclamation);
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
    return this.#route(r, "put", (service, deadline) =>
      service.put(r.scope, r.name, r.data, {
        mimeType: r.mimeType,
        metadata: r.metadata,
        ...deadline,
      }),
    );
  }

  async get(scope: Scope, name: string, options?: GetOptions): Promise<Artifact> {
    this.#ensureOpen();
    const r = parseGet(scope, name, options);
    return this.#route(r, "get", (service, deadline) =>
      service.get(r.scope, r.name, { version: r.version, ...deadline }),
    );
  }

  async head(scope: Scope, name: string, options?: GetOptions): Promise<ArtifactMeta> {
    this.#ensureOpen();
    const r = parseGet(scope, name, options);
    return this.#route(r, "head", (service, deadline) =>
      service.head(r.scope, r.name, { version: r.version, ...deadline }),
    );
  }

  async delete(
    scope: Scope,
    name: string,
    selector: DeleteSelector,
    options?: RequestOptions,
  ): Promise<void> {
    this.#ensureOpen();
    const r = parseDelete(scope, name, selector, options);
    return this.#route(r, "delete", (service, deadline) =>
      service.delete(r.scope, r.name, r.selector, deadline),
    );
  }

  async listNames(scope: Scope, options?: ListNamesOptions): Promise<NamePage> {
    this.#ensureOpen();
    const r = parseListNames(scope, options, this.#capabilities.pagination.maxPageLimit);
    return this.#route(r, "listNames", (service, deadline) =>
      service.listNames(r.scope, {
        limit: r.limit,
        ...(r.cursor === undefined ? {} : { cursor: r.cursor }),
        ...deadline,
      }),
    );
  }

  async listVersions(
    scope: Scope,
    name: string,
    options?: ListVersionsOptions,
  ): Promise<VersionPage> {
    this.#ensureOpen();
    const r = parseListVersions(scope, name, options, this.#capabilities.pagination.maxPageLimit);
    return this.#route(r, "listVersions", (service, deadline) =>
      service.listVersions(r.scope, r.name, {
        limit: r.limit,
        ...(r.cursor === undefined ? {} : { cursor: r.cursor }),
        ...deadline,
      }),
    );
  }

  async list(scope: Scope, options?: RequestOptions): Promise<ArtifactMeta[]> {
    this.#ensureOpen();
    const r = parseScopeRequest(scope, options);
    return this.#route(r, "list", (service, deadline) => service.list(r.scope, deadline));
  }

  /** Closes every worker; later calls fail with `closed`. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#pool.close();
  }

  #ensureOpen(): void {
    if (this.#closed) throw closedError();
  }

  /**
   * Leases the request's worker (no await when it is live, so calls on one scope reach
   * it in the order they were made), runs `call` on it and retires it if it failed.
   */
  async #route<T>(
    request: ParsedRequest,
    operation: string,
    call: (service: ArtifactService, deadline: RequestOptions) => Promise<T>,
  ): Promise<T> {
    const { scope, deadline } = request;
    if (!this.#capabilities.scopes.includes(scope.kind)) {
      throw invalidArgument("scope.kind", `the adapter does not serve ${scope.kind} scopes`);
    }
    const key = routeKey(this.#config.strategy, scope);
    const worker =
      this.#pool.leaseHot(key) ??
      (await this.#pool.leaseCold(key, () => shardOf(this.#config.strategy, scope), deadline));
    try {
      return await call(worker.service, remainingDeadline(deadline));
    } catch (error) {
      const failure = asArtifactError(error, operation);
      if (this.#isWorkerFailure(failure.code)) this.#pool.retire(worker);
      throw failure;
    } finally {
      this.#pool.release(worker);
    }
  }

  /** A backend failure, or a worker closed under an open router: the worker is dead. */
  #isWorkerFailure(code: string): boolean {
    return code === "unavailable" || (code === "closed" && !this.#closed);
  }
}

/** The request's one absolute deadline, as options for the worker: what is left of it. */
function remainingDeadline(deadline: Deadline): RequestOptions {
  deadline.check();
  const remaining = deadline.remainingMs();
  return {
    ...(remaining === undefined ? {} : { timeoutMs: Math.max(1, Math.ceil(remaining)) }),
    ...(deadline.signal ? { signal: deadline.signal } : {}),
  };
}

function routerCapabilities(worker: Capabilities, config: RouterConfig): Capabilities {
  const exact = config.strategy === "exact_scope";
  return defineCapabilities({
    durability: worker.durability,
    maxPageLimit: worker.pagination.maxPageLimit,
    legacyListLimit: worker.pagination.legacyListLimit,
    scopes: worker.scopes,
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
