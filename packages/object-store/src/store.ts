import {
  type ArtifactMeta,
  compareUtf8,
  corruptArtifact,
  type Deadline,
  type DeleteSelector,
  type NamePage,
  notFound,
  resultLimitExceeded,
  type Scope,
  type ScopePage,
  type VersionPage,
} from "@artifact-kit/core";
import {
  type AdapterHooks,
  allSettledOrFirstFailure,
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
  pageScopesWithNames,
  type StoredArtifact,
  type StoredDownload,
  type UploadTarget,
} from "@artifact-kit/core/adapter";
import { VersionAllocator } from "./allocator.js";
import type { ObjectBucket, ObjectInfo } from "./bucket.js";
import type { ObjectFormat } from "./format.js";
import { HeaderFormat } from "./header-format.js";
import { LatestLookup } from "./latest.js";
import { ObjectLayout } from "./layout.js";
import { listAll } from "./listing.js";
import type { ObjectStoreOptions } from "./options.js";
import { Publisher } from "./publisher.js";
import { PublishedReader } from "./reader.js";
import { type RepairOptions, type RepairReport, repairPrefix } from "./repair.js";
import { ScopeMarkers } from "./scopes.js";
import { type Tombstones, tombstonesOf } from "./tombstones.js";
import { TrailerFormat } from "./trailer-format.js";
import { stagedUpload } from "./upload.js";
import { VersionIndex } from "./version-index.js";

/** Default of `recordChunkSettleMs`: longer than a put normally takes to publish. */
const RECORD_CHUNK_SETTLE_MS = 15 * 60 * 1000;

/**
 * The object-store protocol on one bucket and prefix, as core's adapter hooks: requests
 * arrive parsed, bounded and (for puts) copied and digested. It keeps no state that matters
 * for correctness (the allocator's high-water hints only save listings), so any number of
 * instances, on any number of hosts, may share the bucket.
 */
export class ObjectStoreBackend implements AdapterHooks {
  readonly #bucket: ObjectBucket;
  readonly #layout: ObjectLayout;
  readonly #format: ObjectFormat;
  readonly #legacyListLimit: number;
  readonly #formatName: string;
  readonly #allocator: VersionAllocator;
  readonly #latest: LatestLookup;
  readonly #reader: PublishedReader;
  readonly #publisher: Publisher;
  readonly #tombstones: Tombstones;
  readonly #scopes: ScopeMarkers;
  readonly #index: VersionIndex | undefined;

  constructor(options: ObjectStoreOptions) {
    const { bucket, prefix, dialect } = options;
    this.#bucket = bucket;
    this.#layout = new ObjectLayout(prefix, dialect.bindings);
    this.#format =
      dialect.format.kind === "trailer"
        ? new TrailerFormat(dialect.format.name)
        : new HeaderFormat(dialect.format.name);
    this.#legacyListLimit = options.legacyListLimit;
    this.#formatName = dialect.format.name;
    this.#allocator = new VersionAllocator(bucket, this.#layout, options.maxContentionWaitMs);
    this.#latest = new LatestLookup(bucket, this.#layout, this.#allocator);
    this.#reader = new PublishedReader(bucket, this.#layout, this.#format, this.#latest);
    this.#tombstones = tombstonesOf(dialect.deletions, bucket, this.#layout);
    this.#scopes = new ScopeMarkers(bucket, this.#layout, dialect.scopeMarkers);
    this.#publisher = new Publisher(
      bucket,
      this.#layout,
      this.#allocator,
      this.#reader,
      this.#tombstones,
    );
    this.#index =
      dialect.versionRecords === "chunks"
        ? new VersionIndex(
            {
              bucket,
              layout: this.#layout,
              reader: this.#reader,
              allocator: this.#allocator,
              tombstones: this.#tombstones,
            },
            dialect.format.name,
            options.recordChunkSettleMs ?? RECORD_CHUNK_SETTLE_MS,
          )
        : undefined;
  }

  /** Aborts stale multipart uploads and removes orphaned staging (see RepairOptions). */
  repair(options?: RepairOptions): Promise<RepairReport> {
    return repairPrefix(this.#bucket, this.#layout, this.#formatName, options);
  }

  /**
   * One create-only object holding data and manifest: the publication point of a put (after
   * the scope's marker, so a listing of scopes finds every scope that was ever published to).
   */
  async publish(
    request: ParsedPublication,
    bytes: Uint8Array,
    digest: DataDigest,
  ): Promise<ArtifactMeta> {
    await this.#scopes.record(request.scope, request.deadline);
    return this.#publisher.publish(request, digest, (manifest, objectKey) =>
      this.#bucket.createOnly(request.deadline, this.#format.encode(objectKey, manifest, bytes), {
        commit: true,
      }),
    );
  }

  async beginUpload(request: ParsedUpload): Promise<UploadTarget> {
    await this.#scopes.record(request.scope, request.deadline);
    return stagedUpload(this.#bucket, this.#layout, this.#format, this.#publisher, request);
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
      const stored = await this.#bucket.get(request.deadline, objectKey);
      if (stored) return this.#format.decode(stored.bytes, { ...request, version }, objectKey);
      if (request.version !== "latest") break;
    }
    throw notFound(`artifact "${request.name}" version ${request.version}`);
  }

  async readMeta(request: ParsedGet): Promise<ArtifactMeta> {
    const { scope, name, version, deadline } = request;
    const { manifest } = await this.#reader.findVersion(scope, name, version, deadline, false);
    return metaOfManifest(manifest);
  }

  /** Streams a version, or a range of it, with one ranged read, verifying every block. */
  async download(request: ParsedGet): Promise<StoredDownload> {
    const { scope, name, version, deadline } = request;
    const found = await this.#reader.findVersion(scope, name, version, deadline, true);
    const { objectKey, manifest, dataOffset } = found;
    if (manifest.blocks === undefined) {
      throw corruptArtifact(`object ${objectKey} records no block digests`);
    }
    return {
      meta: metaOfManifest(manifest),
      blocks: manifest.blocks,
      read: (start, end) =>
        this.#bucket.readRange(deadline, objectKey, dataOffset + start, dataOffset + end),
    };
  }

  async remove(request: ParsedDelete): Promise<void> {
    const { scope, deadline } = request;
    const { key } = nameKey(request.name);
    // Concurrent deletes of "latest" each take a different version: one that finds its target
    // claimed by another looks again, and answers not_found only when nothing live is left.
    for (;;) {
      const targets = await this.#deleteTargets(scope, key, request.selector, deadline);
      if (targets.length === 0) break;
      // Every request settles before the delete answers, so none lands after a failure.
      const removed = await allSettledOrFirstFailure(
        targets.map((object) => this.#tombstones.remove(scope, key, object, deadline)),
      );
      if (removed.includes(true)) return;
      if (request.selector !== "latest") break;
    }
    throw notFound(`artifact "${request.name}" (${request.selector})`);
  }

  /** One listing request per page (a page that ends in a long-name group reads it whole). */
  names(request: ParsedListNames): Promise<NamePage> {
    const namesPrefix = this.#layout.namesPrefix(request.scope);
    return namePageOfKeys(
      request,
      async ({ keyPrefix, from, wanted, pageToken }) => {
        const page = await this.#bucket.list(request.deadline, {
          prefix: namesPrefix + keyPrefix,
          delimiter: "/",
          maxKeys: Math.min(wanted, this.#bucket.maxListKeys),
          ...(from === undefined ? {} : { startAfter: namesPrefix + from }),
          ...(pageToken ? { cursor: pageToken } : {}),
        });
        return {
          keys: page.prefixes.map((prefix) => prefix.slice(namesPrefix.length, -1)),
          ...(page.cursor ? { pageToken: page.cursor } : {}),
        };
      },
      (key) => this.#reader.truncatedKeyName(request.scope, key, request.deadline),
    );
  }

  /** The markers' scopes (one listing per 1,000), each tested with a one-name listing. */
  async scopes(request: ParsedListScopes): Promise<ScopePage> {
    const known = await this.#scopes.all(request.deadline);
    return pageScopesWithNames(known, request, (names) => this.names(names));
  }

  /** One listing, then the records: from record chunks (see VersionIndex) or per object. */
  async versions(request: ParsedListVersions): Promise<VersionPage> {
    const { scope, cursor, limit, deadline, name } = request;
    const { key } = nameKey(name);
    const page = { scope, key, name, deadline };
    // A page of one or two versions reads them for less than a chunks' listing and a chunk.
    const chunks = limit > 2 ? this.#index?.listChunks(page, (cursor ?? 0) + 1) : undefined;
    const listing = listAll(
      this.#bucket,
      deadline,
      {
        prefix: this.#layout.versionsPrefix(scope, key),
        maxKeys: Math.min(limit + 1, this.#bucket.maxListKeys),
        ...(cursor === undefined
          ? {}
          : { startAfter: this.#layout.versionObject(scope, key, cursor) }),
      },
      limit + 1,
    );
    // Both requests settle before the page answers (none outlives a failure).
    const [objects] = await allSettledOrFirstFailure<unknown>([
      listing,
      chunks?.chunks ?? Promise.resolve(),
    ]);
    const listed = (objects as ObjectInfo[]).slice(0, limit);
    const lastKey = listed[listed.length - 1]?.key ?? "";
    const lastVersion = this.#layout.versionOf(lastKey, this.#layout.versionsPrefix(scope, key));
    const manifests =
      chunks && this.#index && lastVersion !== undefined
        ? await this.#index.manifests(page, listed, chunks.through(lastVersion))
        : (await this.#reader.readAll(scope, listed, deadline, name)).map((read) => read.manifest);
    const items = manifests.map(metaOfManifest);
    const lastItem = items[items.length - 1];
    return (objects as ObjectInfo[]).length > limit && lastItem !== undefined
      ? { items, nextCursor: lastItem.version }
      : { items };
  }

  async legacyList(request: ParsedRequest): Promise<ArtifactMeta[]> {
    const limit = this.#legacyListLimit;
    const objects = await listAll(
      this.#bucket,
      request.deadline,
      {
        prefix: this.#layout.namesPrefix(request.scope),
        maxKeys: Math.min(limit + 1, this.#bucket.maxListKeys),
      },
      limit + 1,
    );
    if (objects.length > limit) throw resultLimitExceeded("legacyListLimit", limit);
    const found = await this.#reader.readAll(request.scope, objects, request.deadline);
    // Key order is name order except inside truncated-key groups; sorting settles both.
    return found
      .map(({ manifest }) => manifest)
      .sort((a, b) => compareUtf8(a.name, b.name) || a.version - b.version)
      .map(metaOfManifest);
  }

  async closeBackend(): Promise<void> {
    this.#allocator.forget();
  }

  /** Versions to delete; a numbered one is checked first, so no marker names a missing one. */
  async #deleteTargets(
    scope: Scope,
    key: string,
    selector: DeleteSelector,
    deadline: Deadline,
  ): Promise<ObjectInfo[]> {
    if (selector === "all") {
      return listAll(this.#bucket, deadline, {
        prefix: this.#layout.versionsPrefix(scope, key),
        maxKeys: this.#bucket.maxListKeys,
      });
    }
    const object =
      selector === "latest"
        ? await this.#latest.latestObject(scope, key, deadline)
        : await this.#bucket.head(deadline, this.#layout.versionObject(scope, key, selector));
    return object ? [object] : [];
  }
}
