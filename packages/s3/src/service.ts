import {
  type Artifact,
  type ArtifactMeta,
  type ArtifactService,
  type ArtifactTransfer,
  type Capabilities,
  checkArtifactSize,
  closedError,
  compareUtf8,
  corruptArtifact,
  type Deadline,
  type DownloadOptions,
  type DownloadSource,
  defineCapabilities,
  type GetOptions,
  type ListNamesOptions,
  type ListVersionsOptions,
  type NamePage,
  notFound,
  type PutOptions,
  type RequestOptions,
  resultLimitExceeded,
  type Scope,
  type UploadOptions,
  type UploadSink,
  type VersionPage,
} from "@artifact-kit/core";
import {
  digestData,
  metaOfManifest,
  nameKey,
  namePageOfKeys,
  parseDelete,
  parseDownload,
  parseGet,
  parseListNames,
  parseListVersions,
  parsePut,
  parseScopeRequest,
  parseUpload,
  resolveRange,
  type StoredManifest,
  uploadSink,
  verifiedSource,
} from "@artifact-kit/core/adapter";
import { VersionAllocator } from "./allocator.js";
import { BucketClient, type ListedObject } from "./bucket-client.js";
import {
  resolveS3Config,
  S3_MAX_KEYS,
  type S3ArtifactServiceOptions,
  type S3Config,
} from "./config.js";
import { LatestLookup, listAll } from "./latest.js";
import { ObjectLayout } from "./layout.js";
import { decodeArtifactObject, encodeArtifactObject } from "./manifest.js";
import { probeConditionalWrites } from "./probe.js";
import { readPublishedManifest } from "./published.js";
import { Publisher } from "./publisher.js";
import { type RepairOptions, type RepairReport, repairPrefix } from "./repair.js";
import { StagedUpload } from "./upload.js";

/**
 * Artifact service on one S3 bucket (or any server speaking S3 with create-only writes).
 * Instances keep no state that matters for correctness: any number of them, on any number of
 * hosts, may share a bucket and prefix. Versions are allocated by create-only writes of
 * permanent allocation objects, and published by one create-only object holding data and
 * manifest, so a reader never sees a partial artifact.
 */
export class S3ArtifactService implements ArtifactService, ArtifactTransfer {
  readonly #config: S3Config;
  readonly #capabilities: Capabilities;
  readonly #client: BucketClient;
  readonly #layout: ObjectLayout;
  readonly #allocator: VersionAllocator;
  readonly #publisher: Publisher;
  readonly #latest: LatestLookup;
  #closed = false;

  /**
   * Checks that the bucket refuses a second create-only write (see the README's provider
   * table) and returns the service; refuses with invalid_argument otherwise.
   */
  static async open(options: S3ArtifactServiceOptions): Promise<S3ArtifactService> {
    const service = new S3ArtifactService(options);
    await probeConditionalWrites(
      service.#client,
      service.#layout,
      service.#config.multipartCompletion,
    );
    return service;
  }

  /** Without the check of `open`: for callers who ran it once, or know their server. */
  constructor(options: S3ArtifactServiceOptions) {
    this.#config = resolveS3Config(options);
    const { client, bucket, maxConcurrency, maxPutAttempts } = this.#config;
    this.#client = new BucketClient(client, bucket, maxConcurrency);
    this.#layout = new ObjectLayout(this.#config.prefix);
    this.#allocator = new VersionAllocator(this.#client, this.#layout, maxPutAttempts);
    this.#publisher = new Publisher(this.#client, this.#layout, this.#allocator);
    this.#latest = new LatestLookup(this.#client, this.#layout, this.#allocator);
    const { maxPageLimit, legacyListLimit, maxArtifactBytes, partBytes } = this.#config;
    this.#capabilities = defineCapabilities({
      durability: "durable",
      maxPageLimit,
      legacyListLimit,
      quotas: {
        appliesTo: "global",
        bounds: { maxArtifactBytes, maxConcurrency, maxPutAttempts, partBytes },
      },
      transfer: { streamingUpload: true, streamingDownload: true, byteRanges: true },
    });
  }

  capabilities(): Capabilities {
    return this.#capabilities;
  }

  async put(
    scope: Scope,
    name: string,
    data: Uint8Array,
    options?: PutOptions,
  ): Promise<ArtifactMeta> {
    this.#ensureOpen();
    const request = parsePut(scope, name, data, options);
    request.deadline.check();
    checkArtifactSize(request.data.byteLength, this.#config.maxArtifactBytes);
    // Copied first, so the caller changing its buffer cannot make the digest lie.
    const stored = new Uint8Array(request.data);
    return this.#publisher.publish(request, digestData(stored), (manifest, objectKey) =>
      this.#client.createOnly(
        request.deadline,
        objectKey,
        encodeArtifactObject(manifest, stored),
        true,
      ),
    );
  }

  /**
   * Streams into a multipart upload of a staging object, one part buffered at a time; at
   * finish the version is allocated and published create-only (see StagedUpload).
   */
  async openUpload(scope: Scope, name: string, options?: UploadOptions): Promise<UploadSink> {
    this.#ensureOpen();
    const request = parseUpload(scope, name, options, this.#config.maxArtifactBytes);
    request.deadline.check();
    const staged = new StagedUpload(
      this.#client,
      this.#layout,
      this.#config.partBytes,
      request.deadline,
    );
    return uploadSink(request, {
      write: async (chunk) => {
        this.#ensureOpen();
        await staged.write(chunk);
      },
      publish: async (digest) => {
        this.#ensureOpen();
        try {
          const write = await staged.seal(this.#config.multipartCompletion === "create-only");
          return await this.#publisher.publish(request, digest, write);
        } finally {
          await staged.discard();
        }
      },
      discard: () => staged.discard(),
    });
  }

  /** Streams a version, or a range of it, with one Range GET, verifying every block. */
  async openDownload(
    scope: Scope,
    name: string,
    options?: DownloadOptions,
  ): Promise<DownloadSource> {
    this.#ensureOpen();
    const request = parseDownload(scope, name, options);
    request.deadline.check();
    const { objectKey, manifest } = await this.#findVersion(
      request.scope,
      request.name,
      request.version,
      request.deadline,
    );
    if (manifest.blocks === undefined) {
      throw corruptArtifact(`object ${objectKey} records no block digests`);
    }
    const signal = request.deadline.toSignal();
    return verifiedSource({
      meta: metaOfManifest(manifest),
      blocks: manifest.blocks,
      range: resolveRange(request.range, manifest.size),
      deadline: request.deadline,
      read: (start, end) => this.#client.readRange(objectKey, start, end, signal),
    });
  }

  async get(scope: Scope, name: string, options?: GetOptions): Promise<Artifact> {
    this.#ensureOpen();
    const request = parseGet(scope, name, options);
    request.deadline.check();
    const { key } = nameKey(request.name);
    // "latest" is looked up again for as long as the version found is deleted under this
    // read: each miss means a delete went through, and not_found only when nothing is live.
    for (;;) {
      const version =
        request.version === "latest"
          ? await this.#latestVersion(request.scope, key, request.deadline)
          : request.version;
      if (version === undefined) break;
      const objectKey = this.#layout.versionObject(request.scope, key, version);
      const stored = await this.#client.get(request.deadline, objectKey);
      if (stored) return decodeArtifactObject(stored.bytes, { ...request, version });
      if (request.version !== "latest") break;
    }
    throw notFound(`artifact "${request.name}" version ${request.version}`);
  }

  async head(scope: Scope, name: string, options?: GetOptions): Promise<ArtifactMeta> {
    this.#ensureOpen();
    const request = parseGet(scope, name, options);
    request.deadline.check();
    const { manifest } = await this.#findVersion(
      request.scope,
      request.name,
      request.version,
      request.deadline,
    );
    return metaOfManifest(manifest);
  }

  /**
   * Deletes published objects; allocations stay, so versions are never reused. Each delete
   * first creates the version's deletion marker, create-only: of concurrent deletes of one
   * version exactly one succeeds, and a retried idempotent put sees the version deleted.
   */
  async delete(
    scope: Scope,
    name: string,
    selector: number | "latest" | "all",
    options?: RequestOptions,
  ): Promise<void> {
    this.#ensureOpen();
    const request = parseDelete(scope, name, selector, options);
    request.deadline.check();
    const { key } = nameKey(request.name);
    // Concurrent deletes of "latest" each take a different version: one that finds its target
    // claimed by another looks again, and answers not_found only when nothing live is left.
    for (;;) {
      const targets = await this.#deleteTargets(
        request.scope,
        key,
        request.selector,
        request.deadline,
      );
      if (targets.length === 0) break;
      const removed = await Promise.all(
        targets.map((objectKey) =>
          this.#deleteVersion(request.scope, key, objectKey, request.deadline),
        ),
      );
      if (removed.includes(true)) return;
      if (request.selector !== "latest") break;
    }
    throw notFound(`artifact "${request.name}" (${request.selector})`);
  }

  /** One ListObjectsV2 request per page (a page that ends in a long-name group reads it whole). */
  async listNames(scope: Scope, options?: ListNamesOptions): Promise<NamePage> {
    this.#ensureOpen();
    const request = parseListNames(scope, options, this.#config.maxPageLimit);
    request.deadline.check();
    const namesPrefix = this.#layout.namesPrefix(request.scope);
    return namePageOfKeys(
      request,
      async ({ keyPrefix, from, wanted, pageToken }) => {
        const page = await this.#client.list(request.deadline, {
          prefix: namesPrefix + keyPrefix,
          delimiter: "/",
          maxKeys: Math.min(wanted, S3_MAX_KEYS),
          ...(from === undefined ? {} : { startAfter: namesPrefix + from }),
          ...(pageToken ? { continuationToken: pageToken } : {}),
        });
        return {
          keys: page.prefixes.map((prefix) => prefix.slice(namesPrefix.length, -1)),
          ...(page.nextToken ? { pageToken: page.nextToken } : {}),
        };
      },
      (key) => this.#truncatedKeyName(request.scope, key, request.deadline),
    );
  }

  async listVersions(
    scope: Scope,
    name: string,
    options?: ListVersionsOptions,
  ): Promise<VersionPage> {
    this.#ensureOpen();
    const request = parseListVersions(scope, name, options, this.#config.maxPageLimit);
    request.deadline.check();
    const { key } = nameKey(request.name);
    const objects = await listAll(
      this.#client,
      request.deadline,
      {
        prefix: this.#layout.versionsPrefix(request.scope, key),
        maxKeys: Math.min(request.limit + 1, S3_MAX_KEYS),
        ...(request.cursor === undefined
          ? {}
          : { startAfter: this.#layout.versionObject(request.scope, key, request.cursor) }),
      },
      request.limit + 1,
    );
    const manifests = await this.#readAll(
      request.scope,
      objects.slice(0, request.limit),
      request.deadline,
      request.name,
    );
    const items = manifests.map(metaOfManifest);
    const last = items[items.length - 1];
    return objects.length > request.limit && last !== undefined
      ? { items, nextCursor: last.version }
      : { items };
  }

  async list(scope: Scope, options?: RequestOptions): Promise<ArtifactMeta[]> {
    this.#ensureOpen();
    const request = parseScopeRequest(scope, options);
    request.deadline.check();
    const limit = this.#config.legacyListLimit;
    const objects = await listAll(
      this.#client,
      request.deadline,
      {
        prefix: this.#layout.namesPrefix(request.scope),
        maxKeys: Math.min(limit + 1, S3_MAX_KEYS),
      },
      limit + 1,
    );
    if (objects.length > limit) throw resultLimitExceeded("legacyListLimit", limit);
    const manifests = await this.#readAll(request.scope, objects, request.deadline);
    // Key order is name order except inside truncated-key groups; sorting settles both.
    return manifests
      .sort((a, b) => compareUtf8(a.name, b.name) || a.version - b.version)
      .map(metaOfManifest);
  }

  /** Aborts stale multipart uploads and removes orphaned staging (see RepairOptions). */
  async repair(options?: RepairOptions): Promise<RepairReport> {
    this.#ensureOpen();
    return repairPrefix(this.#client, this.#layout, options);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#allocator.forget();
  }

  #ensureOpen(): void {
    if (this.#closed) throw closedError();
  }

  async #latestVersion(scope: Scope, key: string, deadline: Deadline): Promise<number | undefined> {
    const object = await this.#latest.latestObject(scope, key, deadline);
    return object === undefined
      ? undefined
      : this.#layout.versionOf(object, this.#layout.versionsPrefix(scope, key));
  }

  async #findVersion(
    scope: Scope,
    name: string,
    version: number | "latest",
    deadline: Deadline,
  ): Promise<{ objectKey: string; manifest: StoredManifest }> {
    const { key } = nameKey(name);
    for (;;) {
      const objectKey =
        version === "latest"
          ? await this.#latest.latestObject(scope, key, deadline)
          : this.#layout.versionObject(scope, key, version);
      if (objectKey === undefined) break;
      const manifest = await this.#readPublished(scope, objectKey, deadline, name);
      if (manifest) return { objectKey, manifest };
      // Deleted between the listing and the read: look up "latest" again.
      if (version !== "latest") break;
    }
    throw notFound(`artifact "${name}" version ${version}`);
  }

  /** Versions to delete; a numbered one is checked first, so no marker names a missing one. */
  async #deleteTargets(
    scope: Scope,
    key: string,
    selector: number | "latest" | "all",
    deadline: Deadline,
  ): Promise<string[]> {
    if (selector === "all") {
      const objects = await listAll(
        this.#client,
        deadline,
        { prefix: this.#layout.versionsPrefix(scope, key), maxKeys: S3_MAX_KEYS },
        Number.POSITIVE_INFINITY,
      );
      return objects.map((object) => object.key);
    }
    if (selector === "latest") {
      const objectKey = await this.#latest.latestObject(scope, key, deadline);
      return objectKey === undefined ? [] : [objectKey];
    }
    const objectKey = this.#layout.versionObject(scope, key, selector);
    return (await this.#client.head(deadline, objectKey)) ? [objectKey] : [];
  }

  /**
   * Deletes one published object; false when another delete claimed it first. A marker left
   * by a delete that died before its DeleteObject is finished here, but still counts as theirs.
   */
  async #deleteVersion(
    scope: Scope,
    key: string,
    objectKey: string,
    deadline: Deadline,
  ): Promise<boolean> {
    const version = this.#layout.versionOf(objectKey, this.#layout.versionsPrefix(scope, key));
    if (version === undefined) throw corruptArtifact(`unexpected object ${objectKey}`);
    const marker = this.#layout.deletionMarker(scope, key, version);
    deadline.check();
    const outcome = await this.#client.createOnly(deadline, marker, new Uint8Array(0), true);
    await this.#client.delete(deadline, objectKey);
    return outcome === "created";
  }

  /** The manifests of listed objects; one deleted meanwhile is left out. */
  async #readAll(
    scope: Scope,
    objects: readonly ListedObject[],
    deadline: Deadline,
    name?: string,
  ): Promise<StoredManifest[]> {
    const manifests = await Promise.all(
      objects.map((object) => this.#readPublished(scope, object.key, deadline, name)),
    );
    return manifests.filter((manifest) => manifest !== undefined);
  }

  /** The name behind a key: decoded when full, read from a manifest when truncated. */
  /** The name behind a truncated key, read from one of its manifests. */
  async #truncatedKeyName(
    scope: Scope,
    key: string,
    deadline: Deadline,
  ): Promise<string | undefined> {
    const page = await this.#client.list(deadline, {
      prefix: this.#layout.versionsPrefix(scope, key),
      maxKeys: 1,
    });
    const object = page.objects[0];
    return object ? (await this.#readPublished(scope, object.key, deadline))?.name : undefined;
  }

  #readPublished(
    scope: Scope,
    objectKey: string,
    deadline: Deadline,
    name?: string,
  ): Promise<StoredManifest | undefined> {
    return readPublishedManifest(this.#client, this.#layout, scope, objectKey, deadline, name);
  }
}
