import { asArtifactError, type Deadline, notFound } from "@artifact-kit/core";
import type { BlobItem, BlobPrefix, BlockBlobClient, ContainerClient } from "@azure/storage-blob";
import pLimit, { type LimitFunction } from "p-limit";
import { isAlreadyExists, isConditionNotMet, isNotFound, statusOf } from "./errors.js";

/** A blob as a listing reports it. */
export interface ListedBlob {
  readonly key: string;
  readonly size: number;
  readonly etag: string;
}

export interface ListRequest {
  prefix: string;
  /** With "/": names under the prefix are grouped at their next "/" (see ListPage.prefixes). */
  delimiter?: string;
  maxKeys: number;
  continuationToken?: string;
}

export interface ListPage {
  readonly blobs: readonly ListedBlob[];
  /** With a delimiter: the common prefixes, each ending in the delimiter. */
  readonly prefixes: readonly string[];
  readonly nextToken?: string;
}

/** Bytes of a blob (or of a range of it), its whole size, ETag and metadata. */
export interface StoredBlob {
  readonly bytes: Uint8Array;
  readonly blobSize: number;
  readonly etag: string;
  readonly metadata: Readonly<Record<string, string>>;
}

/** Bytes [start, end] inclusive, or from `start` to the end of the blob. */
export interface ByteWindow {
  readonly start: number;
  readonly end?: number;
}

/** Created, or refused because the blob exists: the two outcomes of a create-only write. */
export type CreateOutcome = "created" | "exists";

/**
 * What a delete found: removed; nothing there; or, with If-Match, not the ETag named (a blob
 * gone by then may answer that too, as HTTP lets a server: both leave the container as it was).
 */
export type DeleteOutcome = "deleted" | "absent" | "changed";

export interface WriteOptions {
  /** The write that publishes: never abandoned at the deadline, so its outcome is known. */
  readonly commit: boolean;
  /** User metadata stored with the blob in the same request (names: letters and digits). */
  readonly metadata?: Readonly<Record<string, string>>;
}

/**
 * The adapter's only door to one Azure Blob Storage container: bounds in-flight requests,
 * hands the deadline to the SDK as its abortSignal, turns the answers the protocol expects
 * (404 BlobNotFound, 409 BlobAlreadyExists, 412 ConditionNotMet) into values, and every
 * other failure into `unavailable` (or the deadline's own `timeout` / `aborted`). Writes that
 * publish are never abandoned at the deadline, so their outcome is never misreported.
 */
export class BlobClient {
  readonly #container: ContainerClient;
  readonly #limit: LimitFunction;

  constructor(container: ContainerClient, maxConcurrency: number) {
    this.#container = container;
    this.#limit = pLimit(maxConcurrency);
  }

  /** Put Blob with If-None-Match: * (one request). */
  createOnly(
    deadline: Deadline,
    key: string,
    body: Uint8Array,
    options: WriteOptions,
  ): Promise<CreateOutcome> {
    return this.#createOnly(deadline, `write ${key}`, options.commit, (abortSignal) =>
      this.#blob(key).upload(body, body.byteLength, {
        ...withSignal(abortSignal),
        conditions: { ifNoneMatch: "*" },
        ...(options.metadata ? { metadata: { ...options.metadata } } : {}),
      }),
    );
  }

  /** The blob's bytes, or a window of them; undefined when it (or the window) does not exist. */
  get(deadline: Deadline, key: string, window?: ByteWindow): Promise<StoredBlob | undefined> {
    return this.#run(deadline, `read ${key}`, true, async (abortSignal) => {
      try {
        const count = window?.end === undefined ? undefined : window.end - window.start + 1;
        const response = await this.#blob(key).download(
          window?.start ?? 0,
          count,
          withSignal(abortSignal),
        );
        const bytes = await collect(response.readableStreamBody);
        return {
          bytes,
          blobSize: blobSizeOf(response.contentRange, bytes.byteLength),
          etag: response.etag ?? "",
          metadata: response.metadata ?? {},
        };
      } catch (error) {
        if (isNotFound(error) || statusOf(error) === 416) return undefined;
        throw error;
      }
    });
  }

  /** Size, ETag and metadata of a blob; undefined when it does not exist. */
  stat(
    deadline: Deadline,
    key: string,
  ): Promise<(Omit<StoredBlob, "bytes" | "blobSize"> & { size: number }) | undefined> {
    return this.#run(deadline, `read properties of ${key}`, true, async (abortSignal) => {
      try {
        const properties = await this.#blob(key).getProperties(withSignal(abortSignal));
        return {
          size: properties.contentLength ?? 0,
          etag: properties.etag ?? "",
          metadata: properties.metadata ?? {},
        };
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw error;
      }
    });
  }

  /** Bytes [start, end) of a blob, streamed; not counted against maxConcurrency. */
  async *readRange(
    key: string,
    start: number,
    end: number,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<Uint8Array> {
    try {
      const response = await this.#blob(key).download(start, end - start, withSignal(signal));
      const body = response.readableStreamBody;
      if (body) yield* body as AsyncIterable<Uint8Array>;
    } catch (error) {
      if (isNotFound(error)) throw notFound(`blob ${key}`);
      throw asArtifactError(error, `Azure read ${key}`);
    }
  }

  /** One List Blobs request (flat, or grouped at the delimiter). */
  list(deadline: Deadline, request: ListRequest): Promise<ListPage> {
    return this.#run(deadline, `list ${request.prefix}`, true, async (abortSignal) => {
      const pageOptions = {
        maxPageSize: request.maxKeys,
        ...(request.continuationToken ? { continuationToken: request.continuationToken } : {}),
      };
      const listOptions = { prefix: request.prefix, ...withSignal(abortSignal) };
      if (request.delimiter) {
        const { value: page } = await this.#container
          .listBlobsByHierarchy(request.delimiter, listOptions)
          .byPage(pageOptions)
          .next();
        return pageOf(page?.segment.blobItems, page?.segment.blobPrefixes, page?.continuationToken);
      }
      const { value: page } = await this.#container
        .listBlobsFlat(listOptions)
        .byPage(pageOptions)
        .next();
      return pageOf(page?.segment.blobItems, [], page?.continuationToken);
    });
  }

  /**
   * Deletes a blob, only while its ETag is `ifMatch` when given (If-Match); awaited like a
   * publish, so its outcome is always known.
   */
  delete(deadline: Deadline, key: string, ifMatch?: string): Promise<DeleteOutcome> {
    return this.#run(deadline, `delete ${key}`, false, async () => {
      try {
        await this.#blob(key).delete(ifMatch === undefined ? {} : { conditions: { ifMatch } });
        return "deleted";
      } catch (error) {
        if (isNotFound(error)) return "absent";
        if (isConditionNotMet(error)) return "changed";
        throw error;
      }
    });
  }

  /**
   * Put Block: stages block `index` of a blob's block list, uncommitted until Put Block List.
   * Not counted against maxConcurrency (one in flight per upload).
   */
  async stageBlock(
    deadline: Deadline,
    key: string,
    index: number,
    body: Uint8Array,
  ): Promise<void> {
    deadline.check();
    try {
      await this.#blob(key).stageBlock(blockIdOf(index), body, body.byteLength, {
        ...withSignal(deadline.toSignal()),
      });
    } catch (error) {
      throw deadline.failure() ?? asArtifactError(error, `Azure stage a block of ${key}`);
    }
  }

  /**
   * Put Block List of blocks 0..count-1 as staged by `stageBlock`; create-only (If-None-Match:
   * *) unless `createOnly` is false. The blob appears whole, or not at all.
   */
  commitBlocks(
    deadline: Deadline,
    key: string,
    count: number,
    options: WriteOptions & { createOnly: boolean },
  ): Promise<CreateOutcome> {
    const blockIds = Array.from({ length: count }, (_, index) => blockIdOf(index));
    return this.#createOnly(deadline, `commit blocks of ${key}`, options.commit, (abortSignal) =>
      this.#blob(key).commitBlockList(blockIds, {
        ...withSignal(abortSignal),
        ...(options.createOnly ? { conditions: { ifNoneMatch: "*" } } : {}),
        ...(options.metadata ? { metadata: { ...options.metadata } } : {}),
      }),
    );
  }

  /** Best-effort removal of a blob this adapter staged; never throws. */
  async removeQuietly(key: string): Promise<void> {
    await this.#limit(() => this.#blob(key).deleteIfExists()).catch(() => undefined);
  }

  #blob(key: string): BlockBlobClient {
    return this.#container.getBlockBlobClient(key);
  }

  /** A create-only write: 409 BlobAlreadyExists (or 412 ConditionNotMet) is "exists". */
  #createOnly(
    deadline: Deadline,
    operation: string,
    commit: boolean,
    send: (abortSignal: AbortSignal | undefined) => Promise<unknown>,
  ): Promise<CreateOutcome> {
    return this.#run(deadline, operation, !commit, async (abortSignal) => {
      try {
        await send(abortSignal);
        return "created";
      } catch (error) {
        if (isAlreadyExists(error) || isConditionNotMet(error)) return "exists";
        throw error;
      }
    });
  }

  /**
   * Runs one request under the concurrency bound. `abandon`: the deadline aborts it (the SDK's
   * abortSignal); otherwise it runs to its end, for writes whose outcome must be known.
   */
  #run<T>(
    deadline: Deadline,
    operation: string,
    abandon: boolean,
    work: (abortSignal: AbortSignal | undefined) => Promise<T>,
  ): Promise<T> {
    return this.#limit(async () => {
      deadline.check();
      try {
        return await work(abandon ? deadline.toSignal() : undefined);
      } catch (error) {
        throw deadline.failure() ?? asArtifactError(error, `Azure ${operation}`);
      }
    });
  }
}

function withSignal(signal: AbortSignal | undefined): { abortSignal?: AbortSignal } {
  return signal ? { abortSignal: signal } : {};
}

function pageOf(
  items: readonly BlobItem[] | undefined,
  prefixes: readonly BlobPrefix[] | undefined,
  continuationToken: string | undefined,
): ListPage {
  return {
    blobs: (items ?? []).map((blob) => ({
      key: blob.name,
      size: blob.properties.contentLength ?? 0,
      etag: blob.properties.etag ?? "",
    })),
    prefixes: (prefixes ?? []).map((prefix) => prefix.name),
    ...(continuationToken ? { nextToken: continuationToken } : {}),
  };
}

async function collect(body: NodeJS.ReadableStream | undefined): Promise<Uint8Array> {
  if (!body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  for await (const chunk of body as AsyncIterable<Uint8Array>) chunks.push(chunk);
  return chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks);
}

/** The whole blob's size from a Content-Range ("bytes 0-9/1234"), else the body's. */
function blobSizeOf(contentRange: string | undefined, bodyBytes: number): number {
  const total = contentRange?.match(/\/(\d+)$/)?.[1];
  return total === undefined ? bodyBytes : Number(total);
}

/**
 * Block `index`'s id: Azure wants base64 ids of one length within a blob, and ids chosen by
 * index make a retried Put Block replace its own earlier attempt.
 */
function blockIdOf(index: number): string {
  return Buffer.from(`block-${String(index).padStart(6, "0")}`).toString("base64");
}
