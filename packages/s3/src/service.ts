import {
  ObjectLayout,
  ObjectStoreBackend,
  type ObjectStoreDialect,
  ObjectStoreService,
  objectStoreCapabilities,
} from "@artifact-kit/object-store";
import { S3Bucket } from "./bucket-client.js";
import { resolveS3Config, type S3ArtifactServiceOptions } from "./config.js";
import { probeConditionalWrites } from "./probe.js";

/**
 * The s3 adapter's on-bucket format, unchanged since its first release: data then a
 * manifest trailer (S3 parts can only be appended), bindings keyed by name and key, and
 * permanent deletion markers (DeleteObject cannot say whether it deleted anything); scope
 * markers hold their scope in the body (S3 listings carry no metadata). Added later: record
 * chunks under `r/` (new objects; the others are as they were) give a page of versions its
 * records in a few reads, where ListObjectsV2 gives none.
 */
export const S3_DIALECT: ObjectStoreDialect = Object.freeze({
  format: Object.freeze({ kind: "trailer", name: "artifact-kit/s3@1" }),
  bindings: "name-and-key",
  deletions: "markers",
  scopeMarkers: "body",
  versionRecords: "chunks",
});

/**
 * Artifact service on one S3 bucket (or any server speaking S3 with create-only writes).
 * Instances keep no state that matters for correctness: any number of them, on any number of
 * hosts, may share a bucket and prefix. Versions are allocated by create-only writes of
 * permanent allocation objects, and published by one create-only object holding data and
 * manifest, so a reader never sees a partial artifact (the protocol of
 * `@artifact-kit/object-store`).
 */
export class S3ArtifactService extends ObjectStoreService {
  readonly #probe: () => Promise<void>;

  /**
   * Checks that the bucket refuses a second create-only write (see the README's provider
   * table) and returns the service; refuses with invalid_argument otherwise.
   */
  static async open(options: S3ArtifactServiceOptions): Promise<S3ArtifactService> {
    const service = new S3ArtifactService(options);
    await service.#probe();
    return service;
  }

  /** Without the check of `open`: for callers who ran it once, or know their server. */
  constructor(options: S3ArtifactServiceOptions) {
    const config = resolveS3Config(options);
    const { client, bucket: name, maxConcurrency, partBytes, multipartCompletion } = config;
    const bucket = new S3Bucket(client, name, maxConcurrency, {
      partBytes,
      completion: multipartCompletion,
    });
    const backend = new ObjectStoreBackend({ ...config, bucket, dialect: S3_DIALECT });
    super(backend, objectStoreCapabilities(config, { partBytes }));
    const layout = new ObjectLayout(config.prefix, S3_DIALECT.bindings);
    this.#probe = () => probeConditionalWrites(bucket, layout, multipartCompletion);
  }
}
