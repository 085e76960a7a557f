import { type ArtifactError, asArtifactError } from "@artifact-kit/core";
import type { ServicePort } from "@artifact-kit/core/adapter";
import type { Worker } from "./worker.js";

/** What a lease needs of the pool that made it (the pool implements it; declared here so that
 * the lease does not import the pool that imports it). */
export interface LeaseOwner {
  isWorkerFailure(failure: ArtifactError): boolean;
  retire(worker: Worker): void;
  release(worker: Worker): void;
}

/**
 * One hold on a worker. While it is held the worker counts as in use, so idle reclamation
 * never closes it; a call run through it that shows the worker has failed retires the worker.
 */
export class WorkerLease {
  readonly #worker: Worker;
  readonly #pool: LeaseOwner;
  #released = false;

  constructor(worker: Worker, pool: LeaseOwner) {
    this.#worker = worker;
    this.#pool = pool;
  }

  /**
   * Runs `call` on the worker's parsed-request entry points. `call` starts before the first await, so calls
   * made in order reach the worker in order.
   */
  async run<T>(operation: string, call: (port: ServicePort) => Promise<T>): Promise<T> {
    try {
      return await call(this.#worker.port);
    } catch (error) {
      const failure = asArtifactError(error, operation);
      if (this.#pool.isWorkerFailure(failure)) this.#pool.retire(this.#worker);
      throw failure;
    }
  }

  /** Idempotent: a transfer may reach its end on more than one path. */
  release(): void {
    if (this.#released) return;
    this.#released = true;
    this.#pool.release(this.#worker);
  }
}
