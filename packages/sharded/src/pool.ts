import { isDeepStrictEqual } from "node:util";
import {
  ArtifactError,
  type ArtifactService,
  asArtifactError,
  closedError,
  type Deadline,
  type Scope,
} from "@artifact-kit/core";
import PQueue from "p-queue";
import { maxActiveScopesReached, overloaded } from "./errors.js";
import { type LeaseOwner, WorkerLease } from "./lease.js";
import type { RouterConfig } from "./options.js";
import type { Shard, ShardFactory } from "./shard.js";
import { Worker } from "./worker.js";

export interface PoolStatus {
  activeScopes: number;
  openingScopes: number;
  queuedRequests: number;
  evictions: number;
  failures: number;
}

/**
 * The routing table and its admission control. A scope with a live worker is leased
 * without any queue (the hot path); only a cold route waits in the bounded router queue
 * to be admitted (at most `maxActiveScopes` workers, reclaiming an idle durable one at
 * capacity) and to have its worker opened.
 */
export class WorkerPool implements LeaseOwner {
  readonly #factory: ShardFactory;
  readonly #config: RouterConfig;
  readonly #reclaims: boolean;
  readonly #workers = new Map<string, Worker>();
  /** The scope of every exact-scope worker opened since the pool started, by route key. */
  readonly #openedScopes = new Map<string, Scope>();
  /** Workers being opened, so that concurrent cold routes to one scope open it once. */
  readonly #opening = new Map<string, Promise<void>>();
  readonly #queue: PQueue;
  /** One per cold route in the queue, so that close() can fail them all with `closed`. */
  readonly #waiting = new Set<AbortController>();
  /** Closes durable workers idle for idleScopeTimeoutMs; absent when nothing is reclaimed. */
  readonly #sweep: NodeJS.Timeout | undefined;
  #closed = false;
  #evictions = 0;
  #failures = 0;

  constructor(factory: ShardFactory, config: RouterConfig, reclaims: boolean) {
    this.#factory = factory;
    this.#config = config;
    this.#reclaims = reclaims;
    this.#queue = new PQueue({ concurrency: config.maxConcurrentOpens });
    if (reclaims) {
      this.#sweep = setInterval(() => this.#closeIdle(), config.idleScopeTimeoutMs).unref();
    }
  }

  /** The live worker for `key`, leased: no queue, no await. */
  leaseHot(key: string): WorkerLease | undefined {
    const worker = this.#workers.get(key);
    return worker && new WorkerLease(worker.lease(), this);
  }

  /** Waits for `key`'s worker to be admitted and opened, then leases it. */
  async leaseCold(key: string, shard: () => Shard, deadline: Deadline): Promise<WorkerLease> {
    for (;;) {
      const worker = this.leaseHot(key);
      if (worker) return worker;
      // Loops only if the worker failed between being opened and being leased.
      await this.#admit(key, shard, deadline);
    }
  }

  /** The worker is done with one call: it becomes the most recently used. */
  release(worker: Worker): void {
    worker.release(Date.now());
    // Map order is use order, least recent first: reclaiming takes the first idle worker.
    if (this.#workers.get(worker.key) === worker) {
      this.#workers.delete(worker.key);
      this.#workers.set(worker.key, worker);
    }
  }

  /** A backend failure, or a worker closed under an open pool: the worker is dead. */
  isWorkerFailure(failure: ArtifactError): boolean {
    return failure.code === "unavailable" || (failure.code === "closed" && !this.#closed);
  }

  /** Forgets a worker that failed: the next call for its scope opens a new one. */
  retire(worker: Worker): void {
    if (this.#workers.get(worker.key) === worker) {
      this.#workers.delete(worker.key);
      this.#failures += 1;
    }
    worker.retire();
  }

  /** Every scope a worker was opened for since the pool started (see ShardFactory.scopes). */
  openedScopes(): Scope[] {
    return [...this.#openedScopes.values()];
  }

  status(): PoolStatus {
    return {
      activeScopes: this.#workers.size,
      openingScopes: this.#opening.size,
      queuedRequests: this.#queue.size,
      evictions: this.#evictions,
      failures: this.#failures,
    };
  }

  /**
   * Rejects queued cold routes with `closed` and closes every worker, including those
   * still opening (they close themselves as their open completes, see #openWorker).
   */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#sweep);
    for (const waiter of this.#waiting) waiter.abort(closedError());
    const workers = [...this.#workers.values()];
    this.#workers.clear();
    const opening = [...this.#opening.values()].map((opened) => opened.catch(() => undefined));
    await Promise.all([...workers.map((worker) => worker.close()), ...opening]);
  }

  async #admit(key: string, shard: () => Shard, deadline: Deadline): Promise<void> {
    if (this.#closed) throw closedError();
    const { maxRouterQueue } = this.#config;
    if (this.#queue.size + this.#queue.pending >= maxRouterQueue) throw overloaded(maxRouterQueue);
    // A signal of its own rather than AbortSignal.any() with a router-lifetime signal,
    // which would keep memory for every cold route for as long as the router lives.
    const waiter = new AbortController();
    const callerSignal = deadline.toSignal();
    const forward = () => waiter.abort(callerSignal?.reason);
    callerSignal?.addEventListener("abort", forward, { once: true });
    if (callerSignal?.aborted) forward();
    this.#waiting.add(waiter);
    try {
      // p-queue drops a task whose signal aborts while it waits, freeing its place at once.
      await this.#queue.add(() => this.#openOnce(key, shard, deadline), {
        signal: waiter.signal,
      });
    } catch (error) {
      if (!waiter.signal.aborted || error !== waiter.signal.reason) {
        throw asArtifactError(error, "open worker");
      }
      if (this.#closed) throw closedError();
      throw deadline.failure() ?? new ArtifactError("timeout", "the request's deadline passed");
    } finally {
      this.#waiting.delete(waiter);
      callerSignal?.removeEventListener("abort", forward);
    }
  }

  async #openOnce(key: string, shard: () => Shard, deadline: Deadline): Promise<void> {
    if (this.#closed) throw closedError();
    // A request that went stale while it waited never creates a worker.
    deadline.check();
    if (this.#workers.has(key)) return;
    const opening = this.#opening.get(key);
    if (opening) return opening;
    const victim = this.#makeRoom();
    const opened = this.#openWorker(key, shard(), victim).finally(() => this.#opening.delete(key));
    this.#opening.set(key, opened);
    return opened;
  }

  /**
   * At capacity: forgets the least recently used durable worker with nothing in flight and
   * returns it (its data reopens on the next call for its scope), or throws.
   */
  #makeRoom(): Worker | undefined {
    const { maxActiveScopes } = this.#config;
    if (this.#workers.size + this.#opening.size < maxActiveScopes) return undefined;
    const now = Date.now();
    let victim: Worker | undefined;
    if (this.#reclaims) {
      for (const worker of this.#workers.values()) {
        if (worker.isIdle(now, 0)) {
          victim = worker;
          break;
        }
      }
    }
    if (!victim) throw maxActiveScopesReached(maxActiveScopes, this.#reclaims);
    this.#forget(victim);
    return victim;
  }

  /** Closes every durable worker that has been idle for idleScopeTimeoutMs. */
  #closeIdle(): void {
    const now = Date.now();
    for (const worker of [...this.#workers.values()]) {
      if (!worker.isIdle(now, this.#config.idleScopeTimeoutMs)) continue;
      this.#forget(worker);
      void worker.close();
    }
  }

  #forget(worker: Worker): void {
    this.#workers.delete(worker.key);
    this.#evictions += 1;
  }

  async #openWorker(key: string, shard: Shard, victim: Worker | undefined): Promise<void> {
    await victim?.close();
    let service: ArtifactService;
    try {
      service = await this.#factory.open(shard);
    } catch (error) {
      throw asArtifactError(error, `open worker ${shard.id}`);
    }
    const fault = this.#closed ? closedError() : this.#mismatch(service, shard);
    if (fault) {
      await service.close().catch(() => undefined);
      throw fault;
    }
    this.#workers.set(key, new Worker(key, service, Date.now()));
    if (shard.scope) this.#openedScopes.set(key, shard.scope);
  }

  /** The router validated the call against the declared capabilities: a worker must match. */
  #mismatch(service: ArtifactService, shard: Shard): ArtifactError | undefined {
    if (isDeepStrictEqual(service.capabilities(), this.#factory.capabilities)) return undefined;
    return new ArtifactError(
      "unavailable",
      `worker ${shard.id} reports other capabilities than its factory declared`,
    );
  }
}
