import { type Capabilities, closedError, defineCapabilities } from "@artifact-kit/core";
import { AdapterService } from "@artifact-kit/core/adapter";
import { S3Backend } from "./backend.js";
import { resolveS3Config, type S3ArtifactServiceOptions, type S3Config } from "./config.js";
import type { RepairOptions, RepairReport } from "./repair.js";

function s3Capabilities(config: S3Config): Capabilities {
  const { maxPageLimit, legacyListLimit, maxArtifactBytes, maxConcurrency, maxContentionWaitMs } =
    config;
  const bounds = {
    maxArtifactBytes,
    maxConcurrency,
    maxContentionWaitMs,
    partBytes: config.partBytes,
  };
  return defineCapabilities({
    durability: "durable",
    maxPageLimit,
    legacyListLimit,
    quotas: { appliesTo: "global", bounds },
    transfer: { streamingUpload: true, streamingDownload: true, byteRanges: true },
  });
}

/**
 * Artifact service on one S3 bucket (or any server speaking S3 with create-only writes).
 * Instances keep no state that matters for correctness: any number of them, on any number of
 * hosts, may share a bucket and prefix. Versions are allocated by create-only writes of
 * permanent allocation objects, and published by one create-only object holding data and
 * manifest, so a reader never sees a partial artifact.
 */
export class S3ArtifactService extends AdapterService {
  readonly #backend: S3Backend;

  /**
   * Checks that the bucket refuses a second create-only write (see the README's provider
   * table) and returns the service; refuses with invalid_argument otherwise.
   */
  static async open(options: S3ArtifactServiceOptions): Promise<S3ArtifactService> {
    const service = new S3ArtifactService(options);
    await service.#backend.probe();
    return service;
  }

  /** Without the check of `open`: for callers who ran it once, or know their server. */
  constructor(options: S3ArtifactServiceOptions) {
    const config = resolveS3Config(options);
    const backend = new S3Backend(config);
    super(backend, s3Capabilities(config));
    this.#backend = backend;
  }

  /** Aborts stale multipart uploads and removes orphaned staging (see RepairOptions). */
  async repair(options?: RepairOptions): Promise<RepairReport> {
    if (this.closed) throw closedError();
    return this.#backend.repair(options);
  }
}
