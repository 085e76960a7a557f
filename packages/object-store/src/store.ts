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
  type ParsedListVersions,
  type ParsedPublication,
  type ParsedRequest,
  type ParsedUpload,
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
import { type Tombstones, tombstonesOf } from "./tombstones.js";
import { TrailerFormat } from "./trailer-format.js";
import { stagedUpload } from "./upload.js";

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
  readonly #allocator: VersionAllocator;
  readonly #latest: LatestLookup;
  readonly #reader: PublishedReader;
  readonly #publisher: Publisher;
  readonly #tombstones: Tombstones;

  constructor(options: ObjectStoreOptions) {
    const { bucket, prefix, dialect } = options;
    this.#bucket = bucket;
    this.#layout = new ObjectLayout(prefix, dialect.bindings);
    this.#format =
      dialect.format.kind === "trailer"
        ? new TrailerFormat(dialect.format.name)
        : new HeaderFormat(dialect.format.name);
    this.#legacyListLimit = options.legacyListLimit;
    this.#allocator = new VersionAllocator(bucket, this.#layout, options.maxContentionWaitMs);
    this.#latest = new LatestLookup(bucket, this.#layout, this.#allocator);
    this.#reader = new PublishedReader(bucket, this.#layout, this.#format, this.#latest);
    this.#tombstones = tombstonesOf(dialect.deletions, bucket, this.#layout);
    this.#publisher = new Publisher(
      bucket,
      this.#layout,
      this.#allocator,
      this.#reader,
      this.#tombstones,
    );
  }

  /** Aborts stale multipart uploads and removes orphaned staging (see RepairOptions). */
  repair(options?: RepairOptions): Promise<RepairReport> {
    return repairPrefix(this.#bucket, this.#layout, options);
  }

  /** One create-only object holding data and manifest: the publication point of a put. */
  publish(
    request: ParsedPublication,
    bytes: Uint8Array,
    digest: DataDigest,
  ): Promise<ArtifactMeta> {
    return this.#publisher.publish(request, digest, (manifest, objectKey) =>
      this.#bucket.createOnly(request.deadline, this.#format.encode(objectKey, manifest, bytes), {
        commit: true,
      }),
    );
  }

  async beginUpload(request: ParsedUpload): Promise<UploadTarget> {
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

  async versions(request: ParsedListVersions): Promise<VersionPage> {
    const { scope, cursor, limit, deadline } = request;
    const { key } = nameKey(request.name);
    const objects = await listAll(
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
    const page = objects.slice(0, limit);
    const found = await this.#reader.readAll(scope, page, deadline, request.name);
    const items = found.map(({ manifest }) => metaOfManifest(manifest));
    const last = items[items.length - 1];
    return objects.length > limit && last !== undefined
      ? { items, nextCursor: last.version }
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
