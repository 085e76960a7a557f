import type { ArtifactMeta, ArtifactService } from "../types.js";
import type { FaultInjection } from "./faults/injection.js";
import { type PendingCalls, SERVICE_SUBJECT_ROLES } from "./pending-calls.js";

/**
 * A fresh, isolated service over storage of its own (a directory, a bucket prefix, a
 * database), and the hooks that reach that storage. Every hook closes over the subject's
 * own storage, so the kit never needs to know the adapter's class or where it keeps things.
 */
export interface ServiceSubject {
  service: ArtifactService;
  /**
   * Durable adapters: a new service instance over the same storage, as after a restart. The
   * kit has closed the previous instance before it calls this.
   */
  reopen?: () => Promise<ArtifactService>;
  /**
   * Flips the stored byte at `offset` of this version's data in the subject's storage, so
   * that the transfer laws can prove downloads and ranges detect it.
   */
  corrupt?: (meta: ArtifactMeta, offset: number) => Promise<void>;
  /**
   * Durable and remote adapters: a second live instance over the same storage, opened while
   * `service` stays open (another process or host on the same directory, bucket or database).
   * It shares nothing in memory with `service`. The kit closes every instance it opens this
   * way before `cleanup`; the two-handle laws and the linearizability law use it.
   */
  openAnother?: () => Promise<ArtifactService>;
  /**
   * Adapters with a key prefix, schema, root or namespace: a service of the same adapter on the
   * same backend (bucket, database, parent directory) under another one, as a second tenant
   * would configure it, starting empty. The kit closes it; `cleanup` removes its storage too.
   * The isolation law of listScopes uses it.
   */
  openNeighbour?: () => Promise<ArtifactService>;
  /**
   * Network adapters: arms a fault at the service's next backend request (through any of
   * its handles), e.g. through a proxy between the client and the server. The fault laws
   * then interleave faults with operations (see ./faults/injection.ts).
   */
  faults?: FaultInjection;
  /**
   * Adapters with maintenance (fs and object-store `repair()`, database migrations): runs it
   * over the subject's storage as an operator would, with its default options, through an
   * instance of its own. The maintenance laws run it between operations and while puts,
   * deletes and reads are in flight: it must never change what a published version reads as.
   */
  maintain?: () => Promise<void>;
  /** Removes the subject's storage; called after the kit has closed the service. */
  cleanup?: () => Promise<void>;
}

export interface ArtifactServiceConformanceOptions {
  /** A fresh, isolated subject (an empty store) for every call. */
  create: () => Promise<ServiceSubject>;
  /**
   * The same adapter configured with small quotas, page and list limits, so that the kit can
   * drive every declared bound to its edge. Without it, bounds too large to reach cheaply are
   * reported as skipped with the reason.
   */
  createBounded?: () => Promise<ServiceSubject>;
  /** fast-check runs per property (default 100). */
  numRuns?: number;
  /** fast-check seed, to replay a failure (the failure report prints it). */
  seed?: number;
  /** fast-check path of a shrunk counterexample, to replay it with `seed` and `only`. */
  path?: string;
  /** fast-check's replay hint for a shrunk command sequence (the failure report prints it). */
  replayPath?: string;
  /** Runs only the checks whose name contains this text (the failure report prints it). */
  only?: string;
  /**
   * Leaves out (does not register) the checks whose name contains one of these texts: for a
   * run that repeats laws another run of the same adapter has proven already, such as this
   * repository's matrix on further Node versions. A run that omits laws proves less.
   */
  omit?: readonly string[];
  /**
   * Per-check time limit (default 600,000 ms): a check still pending then fails, naming its
   * law (vitest's own limit is a minute above). A limit for hangs, not for speed; the scale
   * laws put 1,100+ names and versions, which a slow backend on a loaded machine needs
   * minutes for.
   */
  testTimeoutMs?: number;
}

/** The subject under test; `reopen` replaces the service in place. */
export interface ServiceHolder {
  service: ArtifactService;
  readonly subject: ServiceSubject;
}

/** Closes the current service and opens the next one over the same storage. */
export async function reopenHolder(holder: ServiceHolder): Promise<ArtifactService> {
  const { reopen } = holder.subject;
  if (!reopen) throw new TypeError("the subject has no reopen");
  await holder.service.close();
  holder.service = await reopen();
  return holder.service;
}

/**
 * Runs `body` against a fresh subject and always closes and cleans it up; with `pending`, the
 * subject's services are watched by it (a hanging law's report names the call that hangs).
 */
export async function withSubject<T>(
  create: () => Promise<ServiceSubject>,
  body: (holder: ServiceHolder) => Promise<T>,
  pending?: PendingCalls,
): Promise<T> {
  const created = await create();
  const subject = pending ? pending.watchSubject(created, SERVICE_SUBJECT_ROLES) : created;
  const holder: ServiceHolder = { service: subject.service, subject };
  try {
    return await body(holder);
  } finally {
    await holder.service.close().catch(() => undefined);
    await subject.cleanup?.();
  }
}

/** An adapter instance with a repair operation (fs, the object stores, postgres). */
export interface RepairableService {
  repair(): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * A `maintain` hook: opens an instance of its own (another host's operator), runs its
 * `repair()` with the defaults and closes it.
 */
export function repairFromAnotherInstance(
  open: () => RepairableService | Promise<RepairableService>,
): () => Promise<void> {
  return async () => {
    const other = await open();
    try {
      await other.repair();
    } finally {
      await other.close();
    }
  };
}
