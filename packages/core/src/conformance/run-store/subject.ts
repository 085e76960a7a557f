import type { RunStore, RunStoreBounds, RunStoreBoundsOptions } from "../../run-store.js";

/** A fresh, empty store and how to dispose of it. */
export interface RunStoreSubject {
  store: RunStore;
  cleanup?: () => Promise<void>;
}

export interface RunStoreConformanceOptions {
  /** A fresh, empty store enforcing `bounds` (the rest at the store's defaults). */
  create: (bounds: RunStoreBoundsOptions) => Promise<RunStoreSubject>;
  /** Durable stores: a new store over the same storage as `old`, with the same bounds, as after a restart. */
  reopen?: (old: RunStore) => Promise<RunStore>;
  /** fast-check runs per property (default 100). */
  numRuns?: number;
  /** fast-check seed, to replay a failure. */
  seed?: number;
  /** Per-check time limit in vitest (default 120,000 ms). */
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
}

/** Runs `body` against a fresh store with `bounds` and always cleans it up. */
export async function withRunStore(
  options: RunStoreConformanceOptions,
  bounds: RunStoreBoundsOptions,
  body: (holder: RunStoreHolder) => Promise<void>,
): Promise<void> {
  const subject = await options.create(bounds);
  try {
    await body({ store: subject.store });
  } finally {
    await subject.cleanup?.();
  }
}
