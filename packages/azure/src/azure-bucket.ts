import { compareUtf8, type Deadline } from "@artifact-kit/core";
import type {
  ByteWindow,
  CreateOutcome,
  DeleteTarget,
  ListPage,
  ListRequest,
  NewObject,
  ObjectBucket,
  ObjectBytes,
  ObjectInfo,
  StagingUpload,
  WriteOptions,
} from "@artifact-kit/object-store";
import {
  BucketRequests,
  guardedStream,
  joinBytes,
  objectSizeOf,
  withSignal,
} from "@artifact-kit/object-store";
import type { BlobItem, BlobPrefix, BlockBlobClient, ContainerClient } from "@azure/storage-blob";
import { BlockStaging, blockId } from "./block-staging.js";
import { isAlreadyExists, isConditionNotMet, isNotFound, statusOf } from "./errors.js";
import { decodeMetadata, encodeMetadata } from "./metadata.js";

/** Azure lists at most this many blobs per request. */
export const AZURE_MAX_LIST_KEYS = 5_000;

/** What a request runs with: the deadline's signal, or none for a write that must finish. */
export type SendWith = (abortSignal: AbortSignal | undefined) => Promise<unknown>;

/**
 * The object-store protocol's bucket over one Azure Blob Storage container: Put Blob and Put
 * Block List with If-None-Match: * for create-only writes (409 BlobAlreadyExists is "exists"),
 * ranged Get Blob, List Blobs with metadata (so a listing carries each version's manifest
 * copy), If-Match deletes on the ETag, and streamed uploads as blocks (see BlockStaging).
 * Bounds in-flight requests, hands the deadline to the SDK as its abortSignal, and turns
 * every unexpected failure into `unavailable` (or the deadline's `timeout` / `aborted`).
 */
export class AzureBucket implements ObjectBucket {
  readonly label = "Azure";
  readonly maxListKeys = AZURE_MAX_LIST_KEYS;
  readonly requestIds = "metadata";
  /**
   * The SDK retries a delete whose reply was lost, and the retry finds the blob gone: a
   * delete's answer cannot say who deleted (the "markers" deletions do not ask it to).
   */
  readonly tellsDeletes = false;
  readonly #container: ContainerClient;
  /** Its requests, under the concurrency bound (block staging sends its own through it). */
  readonly requests: BucketRequests;
  readonly #blockBytes: number;

  constructor(container: ContainerClient, maxConcurrency: number, blockBytes: number) {
    this.#container = container;
    this.requests = new BucketRequests("Azure", maxConcurrency);
    this.#blockBytes = blockBytes;
  }

  /**
   * Put Blob with If-None-Match: *, body and metadata in one request. Azurite refuses that
   * (409) over a blob that holds only uncommitted blocks, as a streamed upload whose Put Block
   * List failed leaves at its version's key, though no blob is there to read; a keyed retry of
   * that upload as a put must still publish. So a refusal over nothing readable looks at the
   * block list, and over uncommitted blocks alone it creates the blob by Put Block List
   * instead, which Azurite lets through, still create-only.
   */
  async createOnly(
    deadline: Deadline,
    object: NewObject,
    options: WriteOptions,
  ): Promise<CreateOutcome> {
    const { key, body, metadata } = object;
    const encoded = metadata ? { metadata: encodeMetadata(metadata) } : {};
    const outcome = await this.createWith(deadline, `write ${key}`, options.commit, (abortSignal) =>
      this.blob(key).upload(body, body.byteLength, {
        ...withSignal(abortSignal),
        conditions: { ifNoneMatch: "*" },
        ...encoded,
      }),
    );
    if (outcome === "created" || !(await this.#holdsOnlyUncommittedBlocks(deadline, key))) {
      return outcome;
    }
    await this.requests.run(deadline, `stage ${key}`, true, (abortSignal) =>
      this.blob(key).stageBlock(blockId(0), body, body.byteLength, withSignal(abortSignal)),
    );
    return this.createWith(deadline, `commit ${key}`, options.commit, (abortSignal) =>
      this.blob(key).commitBlockList([blockId(0)], {
        ...withSignal(abortSignal),
        conditions: { ifNoneMatch: "*" },
        ...encoded,
      }),
    );
  }

  /** One Get Blob; a suffix window first reads the size (Azure has no suffix ranges). */
  get(deadline: Deadline, key: string, window?: ByteWindow): Promise<ObjectBytes | undefined> {
    if (window && "suffix" in window) return this.#getSuffix(deadline, key, window.suffix);
    return this.requests.run(deadline, `read ${key}`, true, async (abortSignal) => {
      try {
        const offset = window?.start ?? 0;
        const count = window ? window.end - window.start + 1 : undefined;
        const response = await this.blob(key).download(offset, count, withSignal(abortSignal));
        const bytes = await collect(response.readableStreamBody);
        return { bytes, objectSize: objectSizeOf(response.contentRange, bytes.byteLength) };
      } catch (error) {
        if (isNotFound(error) || statusOf(error) === 416) return undefined;
        throw error;
      }
    });
  }

  head(deadline: Deadline, key: string): Promise<ObjectInfo | undefined> {
    return this.requests.run(deadline, `read properties of ${key}`, true, async (abortSignal) => {
      try {
        const properties = await this.blob(key).getProperties(withSignal(abortSignal));
        return {
          key,
          size: properties.contentLength ?? 0,
          lastModified: properties.lastModified?.getTime() ?? 0,
          metadata: decodeMetadata(properties.metadata),
          ...(properties.etag ? { match: properties.etag } : {}),
        };
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw error;
      }
    });
  }

  /**
   * One List Blobs request, with metadata. `startAfter` is sent as Azure's startFrom (which is
   * inclusive) and also applied here, as `endBefore` is: the answer is as specified even from
   * a service that ignores startFrom, only slower.
   */
  list(deadline: Deadline, request: ListRequest): Promise<ListPage> {
    return this.requests.run(deadline, `list ${request.prefix}`, true, async (abortSignal) => {
      const options = {
        prefix: request.prefix,
        includeMetadata: true,
        ...(request.startAfter === undefined ? {} : { startFrom: request.startAfter }),
        ...withSignal(abortSignal),
      };
      const paging = {
        maxPageSize: request.maxKeys,
        ...(request.cursor ? { continuationToken: request.cursor } : {}),
      };
      const { value: page } = await (request.delimiter
        ? this.#container.listBlobsByHierarchy(request.delimiter, options).byPage(paging).next()
        : this.#container.listBlobsFlat(options).byPage(paging).next());
      const segment = page?.segment;
      const prefixes: readonly BlobPrefix[] =
        segment && "blobPrefixes" in segment ? (segment.blobPrefixes ?? []) : [];
      return pageWithin(
        request,
        (segment?.blobItems ?? []).map(infoOf),
        prefixes.map((prefix) => prefix.name),
        page?.continuationToken || undefined,
      );
    });
  }

  /** Delete Blob (If-Match on the ETag with `match`); see `tellsDeletes`. */
  delete(deadline: Deadline, target: DeleteTarget): Promise<boolean> {
    return this.requests.run(deadline, `delete ${target.key}`, false, async (abortSignal) => {
      const conditions =
        target.match === undefined ? {} : { conditions: { ifMatch: target.match } };
      try {
        await this.blob(target.key).delete({ ...conditions, ...withSignal(abortSignal) });
      } catch (error) {
        if (!isNotFound(error) && !isConditionNotMet(error)) throw error;
      }
      return true;
    });
  }

  async removeQuietly(key: string): Promise<void> {
    await this.requests.quietly((abortSignal) => this.blob(key).deleteIfExists({ abortSignal }));
  }

  /** Bytes [start, end) of a blob, streamed by one ranged Get Blob. */
  readRange(
    deadline: Deadline,
    key: string,
    start: number,
    end: number,
  ): AsyncIterable<Uint8Array> {
    return guardedStream(deadline, `Azure read ${key}`, key, isNotFound, async () => {
      const response = await this.blob(key).download(
        start,
        end - start,
        withSignal(deadline.toSignal()),
      );
      return (response.readableStreamBody ?? []) as AsyncIterable<Uint8Array>;
    });
  }

  openStaging(deadline: Deadline, stagingKey: string): StagingUpload {
    return new BlockStaging(this, stagingKey, this.#blockBytes, deadline);
  }

  blob(key: string): BlockBlobClient {
    return this.#container.getBlockBlobClient(key);
  }

  /** A create-only write: 409 BlobAlreadyExists (or 412 ConditionNotMet) is "exists". */
  createWith(
    deadline: Deadline,
    operation: string,
    commit: boolean,
    send: SendWith,
  ): Promise<CreateOutcome> {
    return this.requests.run(deadline, operation, !commit, async (abortSignal) => {
      try {
        await send(abortSignal);
        return "created";
      } catch (error) {
        if (isAlreadyExists(error) || isConditionNotMet(error)) return "exists";
        throw error;
      }
    });
  }

  /** No blob to read at `key`, but staged blocks (Get Block List answers for them alone). */
  async #holdsOnlyUncommittedBlocks(deadline: Deadline, key: string): Promise<boolean> {
    if (await this.head(deadline, key)) return false;
    return this.requests.run(deadline, `list blocks of ${key}`, true, async (abortSignal) => {
      try {
        const blocks = await this.blob(key).getBlockList("all", withSignal(abortSignal));
        return (
          (blocks.committedBlocks ?? []).length === 0 && (blocks.uncommittedBlocks ?? []).length > 0
        );
      } catch (error) {
        if (isNotFound(error)) return false;
        throw error;
      }
    });
  }

  async #getSuffix(deadline: Deadline, key: string, suffix: number) {
    const info = await this.head(deadline, key);
    if (!info) return undefined;
    if (info.size === 0) return { bytes: new Uint8Array(0), objectSize: 0 };
    const start = Math.max(0, info.size - suffix);
    return this.get(deadline, key, { start, end: info.size - 1 });
  }
}

function infoOf(blob: BlobItem): ObjectInfo {
  const { contentLength, lastModified, etag } = blob.properties;
  return {
    key: blob.name,
    size: contentLength ?? 0,
    lastModified: lastModified?.getTime() ?? 0,
    metadata: decodeMetadata(blob.metadata),
    ...(etag ? { match: etag } : {}),
  };
}

/**
 * A page cut to the request's bounds: keys after `startAfter` and before `endBefore`; past
 * `endBefore` the listing is over, so the page has no cursor.
 */
function pageWithin(
  request: ListRequest,
  objects: ObjectInfo[],
  prefixes: string[],
  cursor: string | undefined,
): ListPage {
  const { startAfter, endBefore } = request;
  const within = (key: string) =>
    (startAfter === undefined || compareUtf8(key, startAfter) > 0) &&
    (endBefore === undefined || compareUtf8(key, endBefore) < 0);
  const ended =
    endBefore !== undefined &&
    [...objects.map((object) => object.key), ...prefixes].some(
      (key) => compareUtf8(key, endBefore) >= 0,
    );
  return {
    objects: objects.filter((object) => within(object.key)),
    prefixes: prefixes.filter(within),
    ...(cursor && !ended ? { cursor } : {}),
  };
}

/** The body's bytes, as a plain Uint8Array of their own (never a Buffer, nor a pooled slice). */
async function collect(body: NodeJS.ReadableStream | undefined): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  if (body) for await (const chunk of body as AsyncIterable<Uint8Array>) chunks.push(chunk);
  return joinBytes(chunks);
}
