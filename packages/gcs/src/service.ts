import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { finished } from "node:stream/promises";
import {
  type Artifact,
  type ArtifactMeta,
  type ArtifactService,
  type ArtifactTransfer,
  asArtifactError,
  type Capabilities,
  checkArtifactSize,
  closedError,
  compareUtf8,
  type Deadline,
  type DownloadOptions,
  type DownloadSource,
  defineCapabilities,
  digestData,
  type GetOptions,
  isArtifactError,
  type ListNamesOptions,
  type ListVersionsOptions,
  type NamePage,
  nameKey,
  namePageOfKeys,
  notFound,
  type PutOptions,
  parseDelete,
  parseDownload,
  parseGet,
  parseListNames,
  parseListVersions,
  parsePut,
  parseScopeRequest,
  parseUpload,
  type RequestOptions,
  resolveRange,
  resultLimitExceeded,
  type Scope,
  type UploadOptions,
  type UploadSink,
  uploadSink,
  type VersionPage,
  verifiedSource,
} from "@artifact-kit/core";
import { VersionAllocator } from "./allocator.js";
import { BucketClient, type StoredObject } from "./bucket-client.js";
import { type GcsArtifactServiceOptions, type GcsConfig, resolveGcsConfig } from "./config.js";
import { raceDeadline } from "./deadline-race.js";
import { IdempotencyKeys, isKeyed } from "./keys.js";
import { GCS_MAX_RESULTS, LatestLookup, listAll } from "./latest.js";
import { ObjectLayout } from "./layout.js";
import {
  decodeArtifactObject,
  encodeArtifactObject,
  encodeHeader,
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

/**
 * Artifact service on one GCS bucket. Instances keep no state that matters for correctness:
 * any number of them, on any number of hosts, may share a bucket and prefix. Versions are
 * allocated by create-only writes of permanent allocation objects, and published by one
 * create-only object holding manifest and data, so a reader never sees a partial artifact.
 */
export class GcsArtifactService implements ArtifactService, ArtifactTransfer {
  readonly #config: GcsConfig;
  readonly #capabilities: Capabilities;
  readonly #client: BucketClient;
  readonly #layout: ObjectLayout;
  readonly #allocator: VersionAllocator;
  readonly #latest: LatestLookup;
  readonly #keys: IdempotencyKeys;
  readonly #publisher: VersionPublisher;
  #closed = false;

  constructor(options: GcsArtifactServiceOptions) {
    this.#config = resolveGcsConfig(options);
    this.#client = new BucketClient(this.#config.bucket, this.#config.maxConcurrency);
    this.#layout = new ObjectLayout(this.#config.prefix);
    this.#allocator = new VersionAllocator(this.#client, this.#layout, this.#config.maxPutAttempts);
    this.#latest = new LatestLookup(this.#client, this.#layout, this.#allocator);
    this.#keys = new IdempotencyKeys(this.#client, this.#layout);
    this.#publisher = new VersionPublisher(this.#client, this.#layout, this.#allocator, this.#keys);
    const { maxPageLimit, legacyListLimit, maxArtifactBytes, maxConcurrency, maxPutAttempts } =
      this.#config;
    this.#capabilities = defineCapabilities({
      durability: "durable",
      maxPageLimit,
      legacyListLimit,
      quotas: { appliesTo: "global", bounds: { maxArtifactBytes, maxConcurrency, maxPutAttempts } },
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
    const size = request.data.byteLength;
    checkArtifactSize(size, this.#config.maxArtifactBytes);
    // Copied first, so the caller changing its buffer cannot make the digest lie.
    const stored = new Uint8Array(request.data);
    return this.#publisher.commit(
      request,
      digestData(stored),
      request.deadline,
      (manifest, name, deadline) => {
        const { body, headerBytes } = encodeArtifactObject(manifestJson(manifest), stored);
        return this.#client.createOnly(
          deadline,
          { name, body, customMetadata: publishedMetadata(manifest, headerBytes) },
          true,
        );
      },
    );
  }

  /**
   * A resumable upload to a staging object, create-only; at finish, the manifest header is
   * written beside it, the two are composed server-side, and the result is copied create-only
   * to the version's name: the publication point. No byte is buffered beyond one chunk.
   */
  async openUpload(scope: Scope, name: string, options?: UploadOptions): Promise<UploadSink> {
    this.#ensureOpen();
    const request = parseUpload(scope, name, options, this.#config.maxArtifactBytes);
    request.deadline.check();
    const uploadId = randomUUID();
    const parts = {
      data: this.#layout.uploadObject(uploadId, "data"),
      header: this.#layout.uploadObject(uploadId, "header"),
      composed: this.#layout.uploadObject(uploadId, "composed"),
    };
    const stream = this.#client.openUpload(parts.data);
    let streamFailure: unknown;
    stream.on("error", (error) => {
      streamFailure ??= error;
    });
    const failed = () =>
      streamFailure === undefined ? undefined : asArtifactError(streamFailure, "GCS upload");
    const cleanup = () =>
      Promise.all(Object.values(parts).map((part) => this.#client.removeQuietly(part)));
    return uploadSink(request, {
      write: async (chunk) => {
        this.#ensureOpen();
        const failure = failed();
        if (failure) throw failure;
        // The chunk is only lent, and the client's stream keeps what it has not sent yet.
        if (!stream.write(new Uint8Array(chunk))) await once(stream, "drain");
      },
      publish: async (digest, deadline) => {
        this.#ensureOpen();
        stream.end();
        await raceDeadline(finished(stream), deadline).catch((error: unknown) => {
          throw deadline.failure() ?? failed() ?? asArtifactError(error, "GCS upload");
        });
        try {
          return await this.#publisher.commit(request, digest, deadline, async (manifest, name) => {
            const header = encodeHeader(manifestJson(manifest));
            await this.#client.createOnly(
              deadline,
              { name: parts.header, body: header, customMetadata: {} },
              false,
            );
            await this.#client.compose(deadline, [parts.header, parts.data], parts.composed);
            deadline.check();
            return this.#client.copyCreateOnly(deadline, parts.composed, {
              name,
              customMetadata: publishedMetadata(manifest, header.byteLength),
            });
          });
        } finally {
          await cleanup();
        }
      },
      discard: async () => {
        stream.destroy();
        await cleanup();
      },
    });
  }

  /**
   * Streams a version, or a range of it, with one ranged read after the manifest header,
   * verifying every 1 MiB block it touches against the digests in the header.
   */
  async openDownload(
    scope: Scope,
    name: string,
    options?: DownloadOptions,
  ): Promise<DownloadSource> {
    this.#ensureOpen();
    const request = parseDownload(scope, name, options);
    request.deadline.check();
    const { object, manifest } = await this.#findVersion(
      request.scope,
      request.name,
      request.version,
      request.deadline,
    );
    const { blocks } = await readHeaderManifest(
      this.#client,
      this.#layout,
      request.scope,
      object,
      request.deadline,
      request.name,
    );
    const range = resolveRange(request.range, manifest.size);
    const headerBytes = headerBytesOf(object);
    return verifiedSource({
      meta: metaOf(manifest),
      blocks,
      range,
      deadline: request.deadline,
      read: (start, end) =>
        this.#client.readRange(object.name, headerBytes + start, headerBytes + end - 1),
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
      const objectName = this.#layout.versionObject(request.scope, key, version);
      const body = await this.#client.download(request.deadline, objectName);
      if (body) return decodeArtifactObject(body, { ...request, version }, objectName);
      if (request.version !== "latest") break;
    }
    throw notFound(`artifact "${request.name}" version ${request.version}`);
  }

  async head(scope: Scope, name: string, options?: GetOptions): Promise<ArtifactMeta> {
    this.#ensureOpen();
    const request = parseGet(scope, name, options);
    request.deadline.check();
    const found = await this.#findVersion(
      request.scope,
      request.name,
      request.version,
      request.deadline,
    );
    return metaOf(found.manifest);
  }

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
      const removed = await Promise.all(
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
      : this.#layout.versionOf(object.name, this.#layout.versionsPrefix(scope, key));
  }

  async #findVersion(
    scope: Scope,
    name: string,
    version: number | "latest",
    deadline: Deadline,
  ): Promise<{ object: StoredObject; manifest: Manifest }> {
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
    selector: number | "latest" | "all",
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
