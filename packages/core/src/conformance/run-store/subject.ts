import type { RunStore, RunStoreBounds, RunStoreBoundsOptions } from "../../run-store.js";

/** A fresh, empty store over storage of its own, and the hooks that reach that storage. */
export interface RunStoreSubject {
  store: RunStore;
  /**
   * Durable stores: a new store over the same storage with the same bounds, as after a
   * restart (the subject closes whatever the old store held open).
   */
  reopen?: () => Promise<RunStore>;
  /**
   * Durable stores: a second store over the same storage, opened now alongside this one, as
   * a second process would be. It must read everything this one wrote, at any scale.
   */
  peer?: () => Promise<RunStore>;
  /**
   * Stores that share storage by namespace: a store over the same storage under a namespace
   * of its own, which must never see, change or count this store's runs.
   */
  sibling?: () => Promise<RunStore>;
  /** Removes the subject's storage. */
  cleanup?: () => Promise<void>;
}

export interface RunStoreConformanceOptions {
  /** A fresh, empty subject enforcing `bounds` (the rest at the store's defaults). */
  create: (bounds: RunStoreBoundsOptions) => Promise<RunStoreSubject>;
  /**
   * Runs, and files in one run, the scale laws write (default 1,030: past 256, 1,024 and a
   * page of 1,000). A slow subject may pass fewer, but more than a page of its storage.
   */
  scale?: number;
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
  /** Per-check time limit (default 600,000 ms, as the artifact kit's): a check still pending then fails; a limit for hangs, not for speed. */
  testTimeoutMs?: number;
}

/** Small enough that random command sequences hit every bound. */
export const SMALL_BOUNDS: RunStoreBounds = Object.freeze({
  maxArtifactsPerRun: 3,
  maxBytesPerArtifact: 8,
  maxBytesPerRun: 14,
  maxRuns: 2,
  maxTotalBytes: 20,
});

/** The store under test; `reopen` replaces it in place. */
export interface RunStoreHolder {
  store: RunStore;
  readonly subject: RunStoreSubject;
}

/** Opens the next store over the same storage. */
export async function reopenRunStore(holder: RunStoreHolder): Promise<RunStore> {
  const { reopen } = holder.subject;
  if (!reopen) throw new TypeError("the subject has no reopen");
  holder.store = await reopen();
  return holder.store;
}

/** Runs `body` against a fresh store with `bounds` and always cleans it up. */
export async function withRunStore<T>(
  options: RunStoreConformanceOptions,
  bounds: RunStoreBoundsOptions,
  body: (holder: RunStoreHolder) => Promise<T>,
): Promise<T> {
  const subject = await options.create(bounds);
  try {
    return await body({ store: subject.store, subject });
  } finally {
    await subject.cleanup?.();
  }
}
