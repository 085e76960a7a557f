import {
  ObjectStoreBackend,
  type ObjectStoreDialect,
  ObjectStoreService,
  objectStoreCapabilities,
} from "@artifact-kit/object-store";
import { GcsBucket } from "./bucket-client.js";
import { type GcsArtifactServiceOptions, resolveGcsConfig } from "./config.js";

/**
 * The gcs adapter's on-bucket format, unchanged since its first release: a manifest header
 * before the data with a copy in custom metadata (listings carry it), bindings under each
 * name, and deletions flagged on the keyed version's allocation object; scope markers hold
 * their scope in custom metadata too, so listing them reads no object.
 */
export const GCS_DIALECT: ObjectStoreDialect = Object.freeze({
  format: Object.freeze({ kind: "header", name: "artifact-kit/gcs@1" }),
  bindings: "per-name",
  deletions: "allocation-flags",
  scopeMarkers: "metadata",
});

/**
 * Artifact service on one GCS bucket. Instances keep no state that matters for correctness:
 * any number of them, on any number of hosts, may share a bucket and prefix. Versions are
 * allocated by create-only writes of permanent allocation objects, and published by one
 * create-only object holding manifest and data, so a reader never sees a partial artifact
 * (the protocol of `@artifact-kit/object-store`). `repair()` removes the staging objects of
 * streamed uploads that died before publication; GCS lists no open resumable sessions (they
 * expire on their own), so its `abortedUploads` is always 0.
 */
export class GcsArtifactService extends ObjectStoreService {
  constructor(options: GcsArtifactServiceOptions) {
    const config = resolveGcsConfig(options);
    const { readIdleMs, ...rest } = config;
    const bucket = new GcsBucket(config.bucket, config.maxConcurrency, readIdleMs);
    const backend = new ObjectStoreBackend({ ...rest, bucket, dialect: GCS_DIALECT });
    super(backend, objectStoreCapabilities(rest, { readIdleMs }));
  }
}
