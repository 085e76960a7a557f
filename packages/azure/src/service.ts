import {
  ObjectLayout,
  ObjectStoreBackend,
  type ObjectStoreDialect,
  ObjectStoreService,
  objectStoreCapabilities,
} from "@artifact-kit/object-store";
import { AzureBucket } from "./azure-bucket.js";
import { type AzureArtifactServiceOptions, resolveAzureConfig } from "./config.js";
import { probeCreateOnly } from "./probe.js";

/**
 * Azure's on-container format: the manifest heads each published blob (a streamed upload puts
 * it first as a block of its own), with a copy in metadata that List Blobs returns, so a page
 * of versions is one listing; deletions are decided by create-only markers, since the SDK
 * retries a Delete Blob whose reply was lost.
 */
const AZURE_DIALECT: ObjectStoreDialect = Object.freeze({
  format: Object.freeze({ kind: "header", name: "artifact-kit/azure@1" }),
  bindings: "per-name",
  deletions: "markers",
  scopeMarkers: "metadata",
});

/**
 * Artifact service on one Azure Blob Storage container (or Azurite). Instances keep no state
 * that matters for correctness: any number of them, on any number of hosts, may share a
 * container and prefix. Versions are allocated by create-only writes of permanent allocation
 * blobs, and published by one create-only blob holding manifest and data (Put Blob, or Put
 * Block List for a streamed upload, both with If-None-Match: *), so a reader never sees a
 * partial artifact.
 */
export class AzureArtifactService extends ObjectStoreService {
  readonly #bucket: AzureBucket;
  readonly #layout: ObjectLayout;

  /**
   * Checks that the container refuses a second create-only write, by Put Blob and by Put
   * Block List, and returns the service; refuses with invalid_argument otherwise.
   */
  static async open(options: AzureArtifactServiceOptions): Promise<AzureArtifactService> {
    const service = new AzureArtifactService(options);
    await probeCreateOnly(service.#bucket, service.#layout);
    return service;
  }

  /** Without the check of `open`: for callers who ran it once, or know their service. */
  constructor(options: AzureArtifactServiceOptions) {
    const config = resolveAzureConfig(options);
    const bucket = new AzureBucket(config.container, config.maxConcurrency, config.blockBytes);
    const backend = new ObjectStoreBackend({
      bucket,
      prefix: config.prefix,
      dialect: AZURE_DIALECT,
      maxContentionWaitMs: config.maxContentionWaitMs,
      legacyListLimit: config.legacyListLimit,
    });
    super(backend, objectStoreCapabilities(config, { blockBytes: config.blockBytes }));
    this.#bucket = bucket;
    this.#layout = new ObjectLayout(config.prefix, AZURE_DIALECT.bindings);
  }
}
