import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { finished } from "node:stream/promises";
import {
  type Artifact,
  ArtifactError,
  type ArtifactMeta,
  type ArtifactService,
  type ArtifactTransfer,
  asArtifactError,
  type Capabilities,
  checkArtifactSize,
  closedError,
  compareUtf8,
  type DataDigest,
  type Deadline,
  type DownloadOptions,
  type DownloadSource,
  defineCapabilities,
  digestData,
  type GetOptions,
  type ListNamesOptions,
  type ListVersionsOptions,
  type NamePage,
  notFound,
  type ParsedPut,
  type ParsedUpload,
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
  type Scope,
  type UploadOptions,
  type UploadSink,
  uploadSink,
  type VersionPage,
  verifiedSource,
} from "@artifact-kit/core";
import { VersionAllocator } from "./allocator.js";
import { BucketClient, type ListRequest, type StoredObject } from "./bucket-client.js";
import { type GcsArtifactServiceOptions, type GcsConfig, resolveGcsConfig } from "./config.js";
import { raceDeadline } from "./deadline-race.js";
import { ObjectLayout } from "./layout.js";
import {
  corruptArtifact,
  decodeArtifactObject,
  encodeArtifactObject,
  encodeHeader,
  type Manifest,
  manifestJson,
  metaOf,
} from "./manifest.js";
import { groupOfKey, keyStartAfter, nameKey, nameOfFullKey } from "./name-key.js";
import {
  headerBytesOf,
  publishedMetadata,
  readHeaderManifest,
  readPublishedManifest,
} from "./published.js";
import { wroteItself } from "./request-id.js";

/** The largest page one GCS listing returns. */
const GCS_MAX_RESULTS = 1_000;
/** How often `"latest"` is looked up again when that version is deleted under a reader. */
const LATEST_LOOKUPS = 3;

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
  #closed = false;

  constructor(options: GcsArtifactServiceOptions) {
    this.#config = resolveGcsConfig(options);
    this.#client = new BucketClient(this.#config.bucket, this.#config.maxConcurrency);
    this.#layout = new ObjectLayout(this.#config.prefix);
    this.#allocator = new VersionAllocator(this.#client, this.#layout, this.#config.maxPutAttempts);
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
    const { manifest, objectName } = await this.#allocate(request, digestData(stored));
    const { body, headerBytes } = encodeArtifactObject(manifestJson(manifest), stored);
    request.deadline.check();
    const outcome = await this.#client.createOnly(
      request.deadline,
      { name: objectName, body, customMetadata: publishedMetadata(manifest, headerBytes) },
      true,
    );
    await this.#confirmPublished(outcome, objectName, manifest, request.deadline);
    return metaOf(manifest);
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
          const { manifest, objectName } = await this.#allocate(request, digest);
          const header = encodeHeader(manifestJson(manifest));
          await this.#client.createOnly(
            deadline,
            { name: parts.header, body: header, customMetadata: {} },
            false,
          );
          await this.#client.compose(deadline, [parts.header, parts.data], parts.composed);
          deadline.check();
          const outcome = await this.#client.copyCreateOnly(deadline, parts.composed, {
            name: objectName,
            customMetadata: publishedMetadata(manifest, header.byteLength),
          });
          await this.#confirmPublished(outcome, objectName, manifest, deadline);
          return metaOf(manifest);
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

  /** Allocates the next version of a name and writes down what it will publish. */
  async #allocate(
    request: ParsedPut | ParsedUpload,
    digest: DataDigest,
  ): Promise<{ manifest: Manifest; objectName: string }> {
    const { key } = nameKey(request.name);
    const requestId = randomUUID();
    const version = await this.#allocator.allocate(request.scope, key, requestId, request.deadline);
    const manifest: Manifest = {
      scope: request.scope,
      name: request.name,
      version,
      mimeType: request.mimeType,
      size: digest.size,
      sha256: digest.sha256,
      createdAt: Date.now(),
      metadata: request.metadata,
      requestId,
      blocks: digest.blocks,
    };
    return { manifest, objectName: this.#layout.versionObject(request.scope, key, version) };
  }

  /** A 412 on the publishing write is success only if the object there is our own retry. */
  async #confirmPublished(
    outcome: "created" | "exists",
    objectName: string,
    manifest: Manifest,
    deadline: Deadline,
  ): Promise<void> {
    if (
      outcome === "exists" &&
      !(await wroteItself(this.#client, deadline, objectName, manifest.requestId))
    ) {
      // Allocation objects are create-only and permanent, so only this put may publish here.
      throw new ArtifactError(
        "unavailable",
        `version ${manifest.version} was published by another writer`,
      );
    }
  }

  async get(scope: Scope, name: string, options?: GetOptions): Promise<Artifact> {
    this.#ensureOpen();
    const request = parseGet(scope, name, options);
    request.deadline.check();
    const { key } = nameKey(request.name);
    for (let lookup = 0; lookup < LATEST_LOOKUPS; lookup++) {
      const version =
        request.version === "latest"
          ? await this.#latestVersion(request.scope, key, request.deadline)
          : request.version;
      if (version === undefined) break;
      const objectName = this.#layout.versionObject(request.scope, key, version);
      const body = await this.#client.download(request.deadline, objectName);
      if (body) return decodeArtifactObject(body, { ...request, version });
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
    for (let lookup = 0; lookup < LATEST_LOOKUPS; lookup++) {
      const targets = await this.#deleteTargets(
        request.scope,
        key,
        request.selector,
        request.deadline,
      );
      if (targets.length === 0) break;
      request.deadline.check();
      const removed = await Promise.all(
        targets.map((object) => this.#client.delete(request.deadline, object)),
      );
      if (removed.includes(true)) return;
      // Every target was deleted by someone else first: "latest" now means an older version.
      if (request.selector !== "latest") break;
    }
    throw notFound(`artifact "${request.name}" (${request.selector})`);
  }

  async listNames(scope: Scope, options?: ListNamesOptions): Promise<NamePage> {
    this.#ensureOpen();
    const request = parseListNames(scope, options, this.#config.maxPageLimit);
    request.deadline.check();
    const prefix = this.#layout.namesPrefix(request.scope);
    const wanted = request.limit + 1;
    const names: string[] = [];
    let lastGroup: string | undefined;
    let pageToken: string | undefined;
    let filled = false;
    do {
      const page = await this.#client.list(request.deadline, {
        prefix,
        delimiter: "/",
        maxResults: Math.min(wanted, GCS_MAX_RESULTS),
        ...(request.cursor === undefined
          ? {}
          : { startOffset: prefix + keyStartAfter(request.cursor) }),
        ...(pageToken ? { pageToken } : {}),
      });
      for (const keyPrefix of page.prefixes) {
        const key = keyPrefix.slice(prefix.length, -1);
        const group = groupOfKey(key);
        // A truncated-key group is ordered client-side, so it is always read whole.
        if (names.length >= wanted && group !== lastGroup) {
          filled = true;
          break;
        }
        lastGroup = group;
        const name = await this.#nameOfKey(request.scope, key, request.deadline);
        if (name === undefined) continue;
        if (request.cursor !== undefined && compareUtf8(name, request.cursor) <= 0) continue;
        names.push(name);
      }
      pageToken = page.nextPageToken;
    } while (!filled && pageToken);
    names.sort(compareUtf8);
    const items = names.slice(0, request.limit);
    const last = items[items.length - 1];
    return names.length > items.length && last !== undefined
      ? { scope: request.scope, items, nextCursor: last }
      : { scope: request.scope, items };
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
    const objects = await this.#listObjects(
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
    const objects = await this.#listObjects(
      request.deadline,
      {
        prefix: this.#layout.namesPrefix(request.scope),
        maxResults: Math.min(limit + 1, GCS_MAX_RESULTS),
      },
      limit + 1,
    );
    if (objects.length > limit) {
      throw new ArtifactError(
        "result_limit_exceeded",
        `scope holds more than ${limit} versions, more than legacyListLimit; use listNames and listVersions`,
        { detail: { limit: "legacy_list_limit", bound: limit } },
      );
    }
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
    const object = await this.#latestObject(scope, key, deadline);
    return object === undefined
      ? undefined
      : this.#layout.versionOf(object.name, this.#layout.versionsPrefix(scope, key));
  }

  /** The last published object of a name (GCS lists ascending only, so every page is read). */
  async #latestObject(
    scope: Scope,
    key: string,
    deadline: Deadline,
  ): Promise<StoredObject | undefined> {
    const objects = await this.#listObjects(
      deadline,
      { prefix: this.#layout.versionsPrefix(scope, key), maxResults: GCS_MAX_RESULTS },
      Number.POSITIVE_INFINITY,
    );
    return objects[objects.length - 1];
  }

  async #findVersion(
    scope: Scope,
    name: string,
    version: number | "latest",
    deadline: Deadline,
  ): Promise<{ object: StoredObject; manifest: Manifest }> {
    const { key } = nameKey(name);
    for (let lookup = 0; lookup < LATEST_LOOKUPS; lookup++) {
      const object =
        version === "latest"
          ? await this.#latestObject(scope, key, deadline)
          : await this.#client.stat(deadline, this.#layout.versionObject(scope, key, version));
      if (!object) break;
      try {
        return { object, manifest: await this.#readPublished(scope, object, deadline, name) };
      } catch (error) {
        // Deleted between the listing and the header read: look up "latest" again.
        if (
          version !== "latest" ||
          !(error instanceof ArtifactError && error.code === "not_found")
        ) {
          throw error;
        }
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
      return this.#listObjects(
        deadline,
        { prefix: this.#layout.versionsPrefix(scope, key), maxResults: GCS_MAX_RESULTS },
        Number.POSITIVE_INFINITY,
      );
    }
    const object =
      selector === "latest"
        ? await this.#latestObject(scope, key, deadline)
        : await this.#client.stat(deadline, this.#layout.versionObject(scope, key, selector));
    return object ? [object] : [];
  }

  /** Objects of a listing, page after page, until `atLeast` are read or none are left. */
  async #listObjects(
    deadline: Deadline,
    request: ListRequest,
    atLeast: number,
  ): Promise<StoredObject[]> {
    const objects: StoredObject[] = [];
    let pageToken: string | undefined;
    do {
      const page = await this.#client.list(deadline, {
        ...request,
        ...(pageToken ? { pageToken } : {}),
      });
      objects.push(...page.objects);
      pageToken = page.nextPageToken;
    } while (pageToken && objects.length < atLeast);
    return objects;
  }

  /** The name behind a key: decoded when full, read from a manifest when truncated. */
  async #nameOfKey(scope: Scope, key: string, deadline: Deadline): Promise<string | undefined> {
    if (groupOfKey(key) === key) {
      const name = nameOfFullKey(key);
      if (name === undefined) throw corruptArtifact(`unexpected name key ${key}`);
      return name;
    }
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
