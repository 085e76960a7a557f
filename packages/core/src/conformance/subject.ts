import type { ArtifactMeta, ArtifactService } from "../types.js";

/** A fresh, isolated service and how to dispose of it. */
export interface ServiceSubject {
  service: ArtifactService;
  cleanup?: () => Promise<void>;
}

export interface ArtifactServiceConformanceOptions {
  /** A fresh, isolated service (an empty store) for every call. */
  create: () => Promise<ServiceSubject>;
  /** Durable adapters: a new service instance over the same storage as `old`, after `old` is closed. */
  reopen?: (old: ArtifactService) => Promise<ArtifactService>;
  /**
   * The same adapter configured with small quotas, page and list limits, so that the kit can
   * drive every declared bound to its edge. Without it, bounds too large to reach cheaply are
   * reported as skipped with the reason.
   */
  createBounded?: () => Promise<ServiceSubject>;
  /**
   * Flips the stored byte at `offset` of this version's data in the adapter's own storage, so
   * that the transfer checks can prove downloads and ranges detect it. Without it, the
   * corruption check is reported as skipped.
   */
  corruptData?: (service: ArtifactService, meta: ArtifactMeta, offset: number) => Promise<void>;
  /** fast-check runs per property (default 100). */
  numRuns?: number;
  /** fast-check seed, to replay a failure. */
  seed?: number;
  /** Per-check time limit in vitest (default 120,000 ms). */
  testTimeoutMs?: number;
}

/** Runs `body` against a fresh subject and always cleans it up. */
export async function withSubject<T>(
  create: () => Promise<ServiceSubject>,
  body: (holder: ServiceHolder) => Promise<T>,
): Promise<T> {
  const subject = await create();
  const holder: ServiceHolder = { service: subject.service };
  try {
    return await body(holder);
  } finally {
    await holder.service.close().catch(() => undefined);
    await subject.cleanup?.();
  }
}

/** The service under test; `reopen` replaces it in place. */
export interface ServiceHolder {
  service: ArtifactService;
}
