import type { ArtifactService } from "@artifact-kit/core";
import type { ServicePort } from "@artifact-kit/core/adapter";
import { workerPort } from "./public-port.js";

/** One adapter instance and what the router needs to know to reclaim or retire it. */
export class Worker {
  readonly key: string;
  readonly service: ArtifactService;
  /** The service's entry points for requests the router has parsed. */
  readonly port: ServicePort;
  #inFlight = 0;
  #lastUsed: number;
  #retired = false;
  #closing: Promise<void> | undefined;

  constructor(key: string, service: ArtifactService, now: number) {
    this.key = key;
    this.service = service;
    this.port = workerPort(service);
    this.#lastUsed = now;
  }

  get lastUsed(): number {
    return this.#lastUsed;
  }

  lease(): this {
    this.#inFlight += 1;
    return this;
  }

  release(now: number): void {
    this.#inFlight -= 1;
    this.#lastUsed = now;
    if (this.#retired && this.#inFlight === 0) void this.close();
  }

  /** True when no operation is running and none has finished for `idleMs`. */
  isIdle(now: number, idleMs: number): boolean {
    return this.#inFlight === 0 && now - this.#lastUsed >= idleMs;
  }

  /** Takes no new work (the router has forgotten it) and closes once its operations finish. */
  retire(): void {
    this.#retired = true;
    if (this.#inFlight === 0) void this.close();
  }

  /**
   * Idempotent. A failure to close is swallowed: the worker is already out of the routing
   * table, and no caller is waiting on it.
   */
  close(): Promise<void> {
    this.#closing ??= this.service.close().catch(() => undefined);
    return this.#closing;
  }
}
