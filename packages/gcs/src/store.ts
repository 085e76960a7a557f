import {
  type ArtifactMeta,
  type Deadline,
  type DeleteSelector,
  isArtifactError,
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
  compareUtf8,
  type DataDigest,
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
import { BucketClient, type StoredObject } from "./bucket-client.js";
import type { GcsConfig } from "./config.js";
import { IdempotencyKeys, isKeyed } from "./keys.js";
import { GCS_MAX_RESULTS, LatestLookup, listAll } from "./latest.js";
import { ObjectLayout } from "./layout.js";
import {
  decodeArtifactObject,
  encodeArtifactObject,
  type Manifest,
  manifestJson,
  metaOf,
} from "./manifest.js";
import {
  headerBytesOf,
  publishedMetadata,
  readHeaderManifest,
  readPublishedManifest,
} from "./published.js";
import { VersionPublisher } from "./publisher.js";
import { liveScopePage, ScopeMarkers } from "./scopes.js";
import { stagedUpload } from "./upload.js";

/**
 * The gcs adapter's backend: versions as objects in one bucket under one prefix. It keeps no
 * state that matters for correctness (the allocator's high-water hints only save listings),
 * so any number of instances may share the bucket. The template has parsed, bounded, copied
 * and digested what reaches it.
 */
export class GcsStore implements AdapterHooks {
  readonly #config: GcsConfig;
  readonly #client: BucketClient;
  readonly #layout: ObjectLayout;
  readonly #allocator: VersionAllocator;
  readonly #latest: LatestLookup;
  readonly #keys: IdempotencyKeys;
  readonly #publisher: VersionPublisher;
  readonly #scopes: ScopeMarkers;

  constructor(config: GcsConfig) {
    this.#config = config;
    this.#client = new BucketClient(config.bucket, config.maxConcurrency);
    this.#layout = new ObjectLayout(config.prefix);
    this.#allocator = new VersionAllocator(this.#client, this.#layout, config.maxContentionWaitMs);
    this.#latest = new LatestLookup(this.#client, this.#layout, this.#allocator);
    this.#keys = new IdempotencyKeys(this.#client, this.#layout);
    this.#publisher = new VersionPublisher(this.#client, this.#layout, this.#allocator, this.#keys);
    this.#scopes = new ScopeMarkers(this.#client, config.prefix);
  }

  /** One create-only object holding manifest and data: the publication point of a put. */
  async publish(
    request: ParsedPublication,
    bytes: Uint8Array,
    digest: DataDigest,
  ): Promise<ArtifactMeta> {
    await this.#scopes.record(request.scope, request.deadline);
    return this.#publisher.commit(request, digest, request.deadline, (manifest, name, deadline) => {
      const { body, headerBytes } = encodeArtifactObject(manifestJson(manifest), bytes);
      return this.#client.createOnly(
        deadline,
        { name, body, customMetadata: publishedMetadata(manifest, headerBytes) },
        true,
      );
    });
  }

  async beginUpload(request: ParsedUpload): Promise<UploadTarget> {
    await this.#scopes.record(request.scope, request.deadline);
    return stagedUpload(this.#client, this.#layout, this.#publisher, request);
  }

  async read(request: ParsedGet): Promise<StoredArtifact> {
    const { key } = nameKey(request.name);
    // "latest" is looked up again for as long as the version found is deleted under this
    // read: each miss means a delete went through, and not_found only when nothing is live.
    for (;;) {
      const version =
        request.version === "latest"
          ? await this.#latestVersion(request.scope, key, request.deadline)
          : request.version;
      if (version === undefined) break;
      const objectName = this.#layout.versionObject(request.scope, key, version);
      const body = await this.#client.download(request.deadline, objectName);
      if (body) {
        return {
          ...decodeArtifactObject(body, { ...request, version }, objectName),
          shared: false,
        };
      }
      if (request.version !== "latest") break;
    }
    throw notFound(`artifact "${request.name}" version ${request.version}`);
  }

  async readMeta(request: ParsedGet): Promise<ArtifactMeta> {
    const { manifest } = await this.#findVersion(request);
    return metaOf(manifest);
  }

  /**
   * Streams a version, or a range of it, with one ranged read after the manifest header,
   * verifying every 1 MiB block it touches against the digests in the header.
   */
  async download(request: ParsedGet): Promise<StoredDownload> {
    // As a read does, "latest" is looked up again when the version found is deleted before
    // its block digests are read: not_found only when nothing is live (a download of latest
    // racing a delete of the top version answered not_found while an older one was live;
    // found by the kit's linearizability law).
    for (;;) {
      const { object, manifest } = await this.#findVersion(request);
      const header = await readHeaderManifest(
        this.#client,
        this.#layout,
        request.scope,
        object,
        request.deadline,
        request.name,
      ).catch((error: unknown) => {
        if (request.version !== "latest" || !isArtifactError(error, "not_found")) throw error;
        return undefined;
      });
      if (!header) continue;
      const headerBytes = headerBytesOf(object);
      return {
        meta: metaOf(manifest),
        blocks: header.blocks,
        read: (start, end) =>
          this.#client.readRange(object.name, headerBytes + start, headerBytes + end - 1),
      };
    }
  }

  async remove(request: ParsedDelete): Promise<void> {
    const { key } = nameKey(request.name);
    // Concurrent deletes of "latest" each take a different version: one that finds its target
    // gone looks again, and answers not_found only when nothing live is left.
    for (;;) {
      const targets = await this.#deleteTargets(
        request.scope,
        key,
        request.selector,
        request.deadline,
      );
      if (targets.length === 0) break;
      request.deadline.check();
      // Every request settles before the delete answers, so none lands after a failure.
      const removed = await allSettledOrFirstFailure(
        targets.map(async (object) => {
          const version = this.#layout.versionOf(object.name, object.name.replace(/[^/]*$/, ""));
          if (isKeyed(object) && version !== undefined) {
            await this.#keys.markDeleted(request.scope, key, version, request.deadline);
          }
          return this.#client.delete(request.deadline, object);
        }),
      );
      if (removed.includes(true)) return;
      if (request.selector !== "latest") break;
    }
    throw notFound(`artifact "${request.name}" (${request.selector})`);
  }

  names(request: ParsedListNames): Promise<NamePage> {
    const namesPrefix = this.#layout.namesPrefix(request.scope);
    return namePageOfKeys(
      request,
      async ({ keyPrefix, from, wanted, pageToken }) => {
        const page = await this.#client.list(request.deadline, {
          prefix: namesPrefix + keyPrefix,
          delimiter: "/",
          maxResults: Math.min(wanted, GCS_MAX_RESULTS),
          ...(from === undefined ? {} : { startOffset: namesPrefix + from }),
          ...(pageToken ? { pageToken } : {}),
        });
        return {
          keys: page.prefixes.map((prefix) => prefix.slice(namesPrefix.length, -1)),
          ...(page.nextPageToken ? { pageToken: page.nextPageToken } : {}),
        };
      },
      (key) => this.#truncatedKeyName(request.scope, key, request.deadline),
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
        maxResults: Math.min(request.limit + 1, GCS_MAX_RESULTS),
        ...(request.cursor === undefined
          ? {}
          : { startOffset: this.#layout.versionObject(request.scope, key, request.cursor + 1) }),
      },
      request.limit + 1,
    );
    const page = objects.slice(0, request.limit);
    const items = await Promise.all(
      page.map(async (object) =>
        metaOf(await this.#readPublished(request.scope, object, request.deadline, request.name)),
      ),
    );
    const last = items[items.length - 1];
    return objects.length > page.length && last !== undefined
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
        maxResults: Math.min(limit + 1, GCS_MAX_RESULTS),
      },
      limit + 1,
    );
    if (objects.length > limit) throw resultLimitExceeded("legacyListLimit", limit);
    const manifests = await Promise.all(
      objects.map((object) => this.#readPublished(request.scope, object, request.deadline)),
    );
    // Object order is name order except inside truncated-key groups; sorting settles both.
    return manifests
      .sort((a, b) => compareUtf8(a.name, b.name) || a.version - b.version)
      .map(metaOf);
  }

  async closeBackend(): Promise<void> {
    this.#allocator.forget();
  }

  async #latestVersion(scope: Scope, key: string, deadline: Deadline): Promise<number | undefined> {
    const object = await this.#latest.latestObject(scope, key, deadline);
    return object === undefined
      ? undefined
      : this.#layout.versionOf(object.name, this.#layout.versionsPrefix(scope, key));
  }

  /** The object and manifest of the version a head or download asks for. */
  async #findVersion(request: ParsedGet): Promise<{ object: StoredObject; manifest: Manifest }> {
    const { scope, name, version, deadline } = request;
    const { key } = nameKey(name);
    for (;;) {
      const object =
        version === "latest"
          ? await this.#latest.latestObject(scope, key, deadline)
          : await this.#client.stat(deadline, this.#layout.versionObject(scope, key, version));
      if (!object) break;
      try {
        return { object, manifest: await this.#readPublished(scope, object, deadline, name) };
      } catch (error) {
        // Deleted between the lookup and the header read: look up "latest" again.
        if (version !== "latest" || !isArtifactError(error, "not_found")) throw error;
      }
    }
    throw notFound(`artifact "${name}" version ${version}`);
  }

  async #deleteTargets(
    scope: Scope,
    key: string,
    selector: DeleteSelector,
    deadline: Deadline,
  ): Promise<StoredObject[]> {
    if (selector === "all") {
      return listAll(this.#client, deadline, {
        prefix: this.#layout.versionsPrefix(scope, key),
        maxResults: GCS_MAX_RESULTS,
      });
    }
    const object =
      selector === "latest"
        ? await this.#latest.latestObject(scope, key, deadline)
        : await this.#client.stat(deadline, this.#layout.versionObject(scope, key, selector));
    return object ? [object] : [];
  }

  /** The name behind a truncated key, read from one of its manifests. */
  async #truncatedKeyName(
    scope: Scope,
    key: string,
    deadline: Deadline,
  ): Promise<string | undefined> {
    const page = await this.#client.list(deadline, {
      prefix: this.#layout.versionsPrefix(scope, key),
      maxResults: 1,
    });
    const object = page.objects[0];
    return object ? (await this.#readPublished(scope, object, deadline)).name : undefined;
  }

  #readPublished(
    scope: Scope,
    object: StoredObject,
    deadline: Deadline,
    name?: string,
  ): Promise<Manifest> {
    return readPublishedManifest(this.#client, this.#layout, scope, object, deadline, name);
  }
}
