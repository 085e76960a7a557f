import {
  type ArtifactMeta,
  compareUtf8,
  corruptArtifact,
  type NamePage,
  notFound,
  resultLimitExceeded,
  type ScopePage,
  type VersionPage,
} from "@artifact-kit/core";
import {
  type AdapterHooks,
  type DataDigest,
  metaOfManifest,
  nameKey,
  namePageOfKeys,
  type ParsedDelete,
  type ParsedGet,
  type ParsedListNames,
  type ParsedListScopes,
  type ParsedListVersions,
  type ParsedPublication,
  type ParsedRequest,
  type ParsedUpload,
  type StoredArtifact,
  type StoredDownload,
  type UploadTarget,
} from "@artifact-kit/core/adapter";
import { VersionAllocator } from "./allocator.js";
import { BucketClient } from "./bucket-client.js";
import { S3_MAX_KEYS, type S3Config } from "./config.js";
import { VersionRemover } from "./deletion.js";
import { LatestLookup, listAll } from "./latest.js";
import { ObjectLayout } from "./layout.js";
import { decodeArtifactObject, encodeArtifactObject } from "./manifest.js";
import { probeConditionalWrites } from "./probe.js";
import { Publisher } from "./publisher.js";
import { PublishedReader } from "./reader.js";
import { type RepairOptions, type RepairReport, repairPrefix } from "./repair.js";
import { liveScopePage, ScopeMarkers } from "./scopes.js";
import { StagedUpload } from "./upload.js";

/**
 * The s3 adapter's operations on one bucket and prefix, as the template's hooks: requests
 * arrive parsed, bounded and (for puts) copied and digested.
 */
export class S3Backend implements AdapterHooks {
  readonly #config: S3Config;
  readonly #client: BucketClient;
  readonly #layout: ObjectLayout;
  readonly #allocator: VersionAllocator;
  readonly #publisher: Publisher;
  readonly #reader: PublishedReader;
  readonly #remover: VersionRemover;
  readonly #scopes: ScopeMarkers;

  constructor(config: S3Config) {
    this.#config = config;
    const { client, bucket, maxConcurrency, maxContentionWaitMs, prefix } = config;
    this.#client = new BucketClient(client, bucket, maxConcurrency);
    this.#layout = new ObjectLayout(prefix);
    this.#allocator = new VersionAllocator(this.#client, this.#layout, maxContentionWaitMs);
    this.#publisher = new Publisher(this.#client, this.#layout, this.#allocator);
    const latest = new LatestLookup(this.#client, this.#layout, this.#allocator);
    this.#reader = new PublishedReader(this.#client, this.#layout, latest);
    this.#remover = new VersionRemover(this.#client, this.#layout, latest);
    this.#scopes = new ScopeMarkers(this.#client, prefix);
  }

  /** See `S3ArtifactService.open`. */
  probe(): Promise<void> {
    return probeConditionalWrites(this.#client, this.#layout, this.#config.multipartCompletion);
  }

  repair(options?: RepairOptions): Promise<RepairReport> {
    return repairPrefix(this.#client, this.#layout, options);
  }

  async publish(
    request: ParsedPublication,
    bytes: Uint8Array,
    digest: DataDigest,
  ): Promise<ArtifactMeta> {
    await this.#scopes.record(request.scope, request.deadline);
    return this.#publisher.publish(request, digest, (manifest, objectKey) =>
      this.#client.createOnly(
        request.deadline,
        objectKey,
        encodeArtifactObject(manifest, bytes),
        true,
      ),
    );
  }

  /**
   * Streams into a multipart upload of a staging object, one part buffered at a time; at
   * finish the version is allocated and published create-only (see StagedUpload).
   */
  async beginUpload(request: ParsedUpload): Promise<UploadTarget> {
    await this.#scopes.record(request.scope, request.deadline);
    const staged = new StagedUpload(
      this.#client,
      this.#layout,
      this.#config.partBytes,
      request.deadline,
    );
    return {
      write: (chunk) => staged.write(chunk),
      publish: async (digest) => {
        try {
          const write = await staged.seal(this.#config.multipartCompletion === "create-only");
          return await this.#publisher.publish(request, digest, write);
        } finally {
          await staged.discard();
        }
      },
      discard: () => staged.discard(),
    };
  }

  async read(request: ParsedGet): Promise<StoredArtifact> {
    const { key } = nameKey(request.name);
    // "latest" is looked up again for as long as the version found is deleted under this
    // read: each miss means a delete went through, and not_found only when nothing is live.
    for (;;) {
      const version =
        request.version === "latest"
          ? await this.#reader.latestVersion(request.scope, key, request.deadline)
          : request.version;
      if (version === undefined) break;
      const objectKey = this.#layout.versionObject(request.scope, key, version);
      const stored = await this.#client.get(request.deadline, objectKey);
      if (stored) return decodeArtifactObject(stored.bytes, { ...request, version });
      if (request.version !== "latest") break;
    }
    throw notFound(`artifact "${request.name}" version ${request.version}`);
  }

  async readMeta(request: ParsedGet): Promise<ArtifactMeta> {
    const { scope, name, version, deadline } = request;
    const { manifest } = await this.#reader.findVersion(scope, name, version, deadline);
    return metaOfManifest(manifest);
  }

  /** Streams a version, or a range of it, with one Range GET, verifying every block. */
  async download(request: ParsedGet): Promise<StoredDownload> {
    const { scope, name, version, deadline } = request;
    const { objectKey, manifest } = await this.#reader.findVersion(scope, name, version, deadline);
    if (manifest.blocks === undefined) {
      throw corruptArtifact(`object ${objectKey} records no block digests`);
    }
    const signal = deadline.toSignal();
    return {
      meta: metaOfManifest(manifest),
      blocks: manifest.blocks,
      read: (start, end) => this.#client.readRange(objectKey, start, end, signal),
    };
  }

  remove(request: ParsedDelete): Promise<void> {
    return this.#remover.remove(request);
  }

  /** One ListObjectsV2 request per page (a page that ends in a long-name group reads it whole). */
  names(request: ParsedListNames): Promise<NamePage> {
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
      (key) => this.#reader.truncatedKeyName(request.scope, key, request.deadline),
    );
  }

  scopes(request: ParsedListScopes): Promise<ScopePage> {
    return liveScopePage(this.#scopes, request, (names) => this.names(names));
  }

  async versions(request: ParsedListVersions): Promise<VersionPage> {
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
    const manifests = await this.#reader.readAll(
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

  async legacyList(request: ParsedRequest): Promise<ArtifactMeta[]> {
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
    const manifests = await this.#reader.readAll(request.scope, objects, request.deadline);
    // Key order is name order except inside truncated-key groups; sorting settles both.
    return manifests
      .sort((a, b) => compareUtf8(a.name, b.name) || a.version - b.version)
      .map(metaOfManifest);
  }

  async closeBackend(): Promise<void> {
    this.#allocator.forget();
  }
}
