import { type Capabilities, defineCapabilities } from "@artifact-kit/core";
import { AdapterService } from "@artifact-kit/core/adapter";
import {
  type MemoryArtifactServiceOptions,
  type MemoryConfig,
  resolveMemoryConfig,
} from "./config.js";
import { MemoryStore } from "./store.js";

export interface MemoryStatus {
  readonly closed: boolean;
  /** Live bytes and live versions over every scope, against maxTotalBytes / maxTotalArtifacts. */
  readonly quotaUsage: { readonly maxTotalBytes: number; readonly maxTotalArtifacts: number };
}

function memoryCapabilities(config: MemoryConfig): Capabilities {
  const { maxPageLimit, legacyListLimit, ...bounds } = config;
  return defineCapabilities({
    durability: "volatile",
    maxPageLimit,
    legacyListLimit,
    quotas: { appliesTo: "global", bounds },
    transfer: { streamingUpload: true, streamingDownload: true, byteRanges: true },
  });
}

/**
 * Volatile artifact service in one process. Bytes are copied in and out, so neither the
 * buffer given to `put` nor the one returned by `get` can change what is stored. Streaming
 * uploads gather their chunks under the same quotas; downloads and byte ranges are served
 * block by block, verified against the block digests recorded at publication.
 */
export class MemoryArtifactService extends AdapterService {
  readonly #store: MemoryStore;

  constructor(options?: MemoryArtifactServiceOptions) {
    const config = resolveMemoryConfig(options);
    const store = new MemoryStore(config);
    super(store, memoryCapabilities(config));
    this.#store = store;
  }

  /**
   * How much of the service-wide bounds is used, keyed by the bound's name in
   * `capabilities().quotas.bounds`, for monitoring (e.g. `@artifact-kit/otel`'s
   * `artifact.quota.usage`). Per-scope bounds have one usage per scope and are not reported.
   */
  status(): MemoryStatus {
    const { totalBytes, totalArtifacts } = this.#store.usage();
    return Object.freeze({
      closed: this.closed,
      quotaUsage: Object.freeze({
        maxTotalBytes: totalBytes,
        maxTotalArtifacts: totalArtifacts,
      }),
    });
  }
}
