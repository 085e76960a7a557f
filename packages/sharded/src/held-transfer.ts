import { ArtifactError, type Deadline } from "@artifact-kit/core";
import type { WorkerLease } from "./lease.js";

/** The transfers a router has open, so that close() can stop them before it closes workers. */
export class OpenTransfers {
  readonly #open = new Set<TransferHold>();
  /** How long an open transfer may go without a call before the router ends it. */
  readonly idleTimeoutMs: number;

  constructor(idleTimeoutMs: number) {
    this.idleTimeoutMs = idleTimeoutMs;
  }

  add(hold: TransferHold): void {
    this.#open.add(hold);
  }

  delete(hold: TransferHold): void {
    this.#open.delete(hold);
  }

  /** Stops every open transfer with `failure` and waits until each has let go of its worker. */
  async stopAll(failure: ArtifactError): Promise<void> {
    await Promise.all([...this.#open].map((hold) => hold.stop(failure)));
  }
}

/**
 * What an open upload or download holds on the router: its worker's lease, from open until
 * the transfer ends, so idle reclamation never closes a worker under it. The hold also ends
 * the transfer itself when its deadline passes or its signal aborts, and when the router
 * closes, and when it goes `idleTimeoutMs` without a call: a transfer its owner walked away
 * from pins a worker no longer than that, deadline or not.
 */
export class TransferHold {
  readonly #lease: WorkerLease;
  readonly #open: OpenTransfers;
  /** Stops the worker's transfer (abort an upload, cancel a download); errors are ignored. */
  readonly #halt: (failure: ArtifactError) => Promise<void>;
  readonly #unwatch: () => void;
  #idleTimer: NodeJS.Timeout | undefined;
  /** Calls under way on the worker's transfer: idleness counts only between calls. */
  #calls = 0;
  #held = true;
  /** Why the router stopped the transfer: every later call fails with it. */
  #failure: ArtifactError | undefined;
  #stopping: Promise<void> | undefined;
  /** The call in flight on the worker's transfer, so that a stop never races it. */
  #busy: Promise<unknown> = Promise.resolve();

  constructor(
    lease: WorkerLease,
    deadline: Deadline,
    open: OpenTransfers,
    halt: (failure: ArtifactError) => Promise<void>,
  ) {
    this.#lease = lease;
    this.#open = open;
    this.#halt = halt;
    open.add(this);
    const signal = deadline.toSignal();
    // The worker's transfer watches the same deadline and fails itself; this only makes
    // sure the router lets go of the worker even if nobody calls the transfer again.
    const onAbort = () => void this.stop(deadline.failure() ?? deadlinePassed());
    signal?.addEventListener("abort", onAbort, { once: true });
    this.#unwatch = () => signal?.removeEventListener("abort", onAbort);
    if (signal?.aborted) onAbort();
    this.#armIdleTimer();
  }

  /**
   * Runs one call on the worker's transfer. While the lease is held, a worker failure it
   * reveals retires the worker; after the transfer has ended the worker may already be
   * reclaimed, and the call (which can only report that the transfer is over) runs bare.
   */
  run<T>(operation: string, call: () => Promise<T>): Promise<T> {
    if (this.#failure) return Promise.reject(this.#failure);
    this.#calls += 1;
    clearTimeout(this.#idleTimer);
    const work = this.#held ? this.#lease.run(operation, call) : call();
    this.#busy = work.catch(() => undefined);
    return work.finally(() => {
      this.#calls -= 1;
      this.#armIdleTimer();
    });
  }

  /** The transfer is over: lets go of the worker, once. A stop under way ends it itself. */
  end(): void {
    if (this.#stopping) return;
    this.#release();
  }

  /** Ends the transfer from the router's side: later calls fail with `failure`. Idempotent. */
  stop(failure: ArtifactError): Promise<void> {
    if (!this.#held) return Promise.resolve();
    this.#failure ??= failure;
    this.#stopping ??= (async () => {
      await this.#busy;
      await this.#halt(failure).catch(() => undefined);
      this.#release();
    })();
    return this.#stopping;
  }

  #armIdleTimer(): void {
    if (!this.#held || this.#calls > 0) return;
    const idleMs = this.#open.idleTimeoutMs;
    clearTimeout(this.#idleTimer);
    this.#idleTimer = setTimeout(() => void this.stop(idleTransfer(idleMs)), idleMs).unref();
  }

  #release(): void {
    if (!this.#held) return;
    this.#held = false;
    clearTimeout(this.#idleTimer);
    this.#unwatch();
    this.#open.delete(this);
    this.#lease.release();
  }
}

function deadlinePassed(): ArtifactError {
  return new ArtifactError("timeout", "the transfer's deadline passed");
}

function idleTransfer(idleMs: number): ArtifactError {
  return new ArtifactError(
    "timeout",
    `the transfer went ${idleMs} ms without a call (transferIdleTimeoutMs); the router ended it`,
    { detail: { limit: "transfer_idle_timeout_ms", bound: idleMs } },
  );
}
