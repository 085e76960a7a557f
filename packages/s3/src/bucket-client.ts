import { asArtifactError, type Deadline, notFound, unavailable } from "@artifact-kit/core";
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
  UploadPartCommand,
  UploadPartCopyCommand,
} from "@aws-sdk/client-s3";
import pLimit, { type LimitFunction } from "p-limit";

/** An object as a listing reports it. */
export interface ListedObject {
  readonly key: string;
  readonly size: number;
  readonly lastModified: number;
}

export interface ListRequest {
  prefix: string;
  delimiter?: string;
  startAfter?: string;
  maxKeys: number;
  continuationToken?: string;
}

export interface ListPage {
  readonly objects: readonly ListedObject[];
  /** With a delimiter: the common prefixes, each ending in the delimiter. */
  readonly prefixes: readonly string[];
  readonly nextToken?: string;
}

/** Bytes of an object (or of a range of it) and the object's whole size. */
interface ObjectBytes {
  readonly bytes: Uint8Array;
  readonly objectSize: number;
}

type ByteWindow = { start: number; end: number } | { suffix: number };

interface PendingUpload {
  readonly key: string;
  readonly uploadId: string;
  readonly initiated: number;
}

/** Created, or refused because the key exists (412): the two outcomes of a create-only write. */
export type CreateOutcome = "created" | "exists";

/** Conflicting conditional writes on one key: S3 answers 409 and asks for a retry. */
const CONFLICT_RETRIES = 3;

/**
 * The adapter's only door to S3: bounds in-flight requests, hands the deadline to the SDK as
 * its abortSignal, turns the statuses the protocol expects (404, 412) into values, and every
 * other failure into `unavailable` (or the deadline's own `timeout` / `aborted`). Writes that
 * publish are never abandoned at the deadline, so their outcome is never misreported.
 */
export class BucketClient {
  readonly #client: S3Client;
  readonly #bucket: string;
  readonly #limit: LimitFunction;

  constructor(client: S3Client, bucket: string, maxConcurrency: number) {
    this.#client = client;
    this.#bucket = bucket;
    this.#limit = pLimit(maxConcurrency);
  }

  /** PutObject with If-None-Match: * (one request); `commit` marks the publishing write. */
  createOnly(
    deadline: Deadline,
    key: string,
    body: Uint8Array,
    commit: boolean,
  ): Promise<CreateOutcome> {
    return this.#createOnly(deadline, `write ${key}`, commit, (abortSignal) =>
      this.#client.send(
        new PutObjectCommand({
          Bucket: this.#bucket,
          Key: key,
          Body: body,
          ContentType: "application/octet-stream",
          IfNoneMatch: "*",
        }),
        withSignal(abortSignal),
      ),
    );
  }

  /** The object's bytes, or a window of them; undefined when it does not exist. */
  get(deadline: Deadline, key: string, window?: ByteWindow): Promise<ObjectBytes | undefined> {
    return this.#run(deadline, `read ${key}`, true, async (abortSignal) => {
      try {
        const response = await this.#client.send(
          new GetObjectCommand({
            Bucket: this.#bucket,
            Key: key,
            ...(window ? { Range: rangeHeader(window) } : {}),
          }),
          withSignal(abortSignal),
        );
        const bytes = (await response.Body?.transformToByteArray()) ?? new Uint8Array(0);
        return { bytes, objectSize: objectSizeOf(response.ContentRange, bytes.byteLength) };
      } catch (error) {
        if (statusOf(error) === 404 || statusOf(error) === 416) return undefined;
        throw error;
      }
    });
  }

  /** Size and user metadata of an object; undefined when it does not exist. */
  head(
    deadline: Deadline,
    key: string,
  ): Promise<{ size: number; metadata: Record<string, string> } | undefined> {
    return this.#run(deadline, `read metadata of ${key}`, true, async (abortSignal) => {
      try {
        const response = await this.#client.send(
          new HeadObjectCommand({ Bucket: this.#bucket, Key: key }),
          withSignal(abortSignal),
        );
        return { size: response.ContentLength ?? 0, metadata: response.Metadata ?? {} };
      } catch (error) {
        if (statusOf(error) === 404) return undefined;
        throw error;
      }
    });
  }

  /** One ListObjectsV2 request. */
  list(deadline: Deadline, request: ListRequest): Promise<ListPage> {
    return this.#run(deadline, `list ${request.prefix}`, true, async (abortSignal) => {
      const response = await this.#client.send(
        new ListObjectsV2Command({
          Bucket: this.#bucket,
          Prefix: request.prefix,
          MaxKeys: request.maxKeys,
          ...(request.delimiter ? { Delimiter: request.delimiter } : {}),
          ...(request.startAfter ? { StartAfter: request.startAfter } : {}),
          ...(request.continuationToken ? { ContinuationToken: request.continuationToken } : {}),
        }),
        withSignal(abortSignal),
      );
      return {
        objects: (response.Contents ?? []).map((object) => ({
          key: object.Key ?? "",
          size: object.Size ?? 0,
          lastModified: object.LastModified?.getTime() ?? 0,
        })),
        prefixes: (response.CommonPrefixes ?? []).map((common) => common.Prefix ?? ""),
        ...(response.IsTruncated && response.NextContinuationToken
          ? { nextToken: response.NextContinuationToken }
          : {}),
      };
    });
  }

  /** Deletes a key (S3 answers the same whether or not it existed); awaited like a publish. */
  delete(deadline: Deadline, key: string): Promise<void> {
    return this.#run(deadline, `delete ${key}`, false, async () => {
      await this.#client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: key }));
    });
  }

  /** Bytes [start, end) of an object, streamed; not counted against maxConcurrency. */
  async *readRange(
    key: string,
    start: number,
    end: number,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<Uint8Array> {
    try {
      const response = await this.#client.send(
        new GetObjectCommand({
          Bucket: this.#bucket,
          Key: key,
          Range: `bytes=${start}-${end - 1}`,
        }),
        signal ? { abortSignal: signal } : {},
      );
      yield* response.Body as AsyncIterable<Uint8Array>;
    } catch (error) {
      if (statusOf(error) === 404) throw notFound(`object ${key}`);
      throw asArtifactError(error, `S3 read ${key}`);
    }
  }

  startMultipart(deadline: Deadline, key: string): Promise<string> {
    return this.#run(deadline, `start upload of ${key}`, true, async (abortSignal) => {
      const response = await this.#client.send(
        new CreateMultipartUploadCommand({
          Bucket: this.#bucket,
          Key: key,
          ContentType: "application/octet-stream",
        }),
        withSignal(abortSignal),
      );
      if (!response.UploadId) throw unavailable(`S3 gave no upload id for ${key}`);
      return response.UploadId;
    });
  }

  /** Uploads one part; its ETag. Not counted against maxConcurrency (one per upload). */
  async uploadPart(
    deadline: Deadline,
    upload: { key: string; uploadId: string },
    partNumber: number,
    body: Uint8Array,
  ): Promise<string> {
    deadline.check();
    try {
      const response = await this.#client.send(
        new UploadPartCommand({
          Bucket: this.#bucket,
          Key: upload.key,
          UploadId: upload.uploadId,
          PartNumber: partNumber,
          Body: body,
        }),
        withSignal(deadline.toSignal()),
      );
      return etagOf(response.ETag, upload.key);
    } catch (error) {
      throw deadline.failure() ?? asArtifactError(error, `S3 upload part of ${upload.key}`);
    }
  }

  /** Copies bytes [start, end] inclusive of `source` into a part, server-side; its ETag. */
  copyPart(
    deadline: Deadline,
    upload: { key: string; uploadId: string },
    partNumber: number,
    source: { key: string; start: number; end: number },
  ): Promise<string> {
    return this.#run(deadline, `copy into ${upload.key}`, true, async (abortSignal) => {
      const response = await this.#client.send(
        new UploadPartCopyCommand({
          Bucket: this.#bucket,
          Key: upload.key,
          UploadId: upload.uploadId,
          PartNumber: partNumber,
          CopySource: `${this.#bucket}/${encodeURIComponent(source.key)}`,
          CopySourceRange: `bytes=${source.start}-${source.end}`,
        }),
        withSignal(abortSignal),
      );
      return etagOf(response.CopyPartResult?.ETag, upload.key);
    });
  }

  /** Completes a multipart upload, create-only unless `createOnly` is false. */
  completeMultipart(
    deadline: Deadline,
    upload: { key: string; uploadId: string },
    etags: readonly string[],
    options: { createOnly: boolean; commit: boolean },
  ): Promise<CreateOutcome> {
    return this.#createOnly(deadline, `complete ${upload.key}`, options.commit, (abortSignal) =>
      this.#client.send(
        new CompleteMultipartUploadCommand({
          Bucket: this.#bucket,
          Key: upload.key,
          UploadId: upload.uploadId,
          MultipartUpload: {
            Parts: etags.map((ETag, index) => ({ ETag, PartNumber: index + 1 })),
          },
          ...(options.createOnly ? { IfNoneMatch: "*" } : {}),
        }),
        withSignal(abortSignal),
      ),
    );
  }

  /** Best-effort abort of a multipart upload; never throws. */
  async abortQuietly(upload: { key: string; uploadId: string }): Promise<void> {
    await this.#limit(() =>
      this.#client.send(
        new AbortMultipartUploadCommand({
          Bucket: this.#bucket,
          Key: upload.key,
          UploadId: upload.uploadId,
        }),
      ),
    ).catch(() => undefined);
  }

  /** Best-effort removal of an object this adapter staged; never throws. */
  async removeQuietly(key: string): Promise<void> {
    await this.#limit(() =>
      this.#client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: key })),
    ).catch(() => undefined);
  }

  /** One page of ListMultipartUploads under a prefix. */
  listUploads(
    deadline: Deadline,
    prefix: string,
    after?: { keyMarker: string; uploadIdMarker: string },
  ): Promise<{ uploads: PendingUpload[]; next?: { keyMarker: string; uploadIdMarker: string } }> {
    return this.#run(deadline, `list uploads under ${prefix}`, true, async (abortSignal) => {
      const response = await this.#client.send(
        new ListMultipartUploadsCommand({
          Bucket: this.#bucket,
          Prefix: prefix,
          ...(after ? { KeyMarker: after.keyMarker, UploadIdMarker: after.uploadIdMarker } : {}),
        }),
        withSignal(abortSignal),
      );
      const uploads = (response.Uploads ?? []).map((upload) => ({
        key: upload.Key ?? "",
        uploadId: upload.UploadId ?? "",
        initiated: upload.Initiated?.getTime() ?? 0,
      }));
      const { NextKeyMarker, NextUploadIdMarker } = response;
      return response.IsTruncated && NextKeyMarker !== undefined && NextUploadIdMarker !== undefined
        ? { uploads, next: { keyMarker: NextKeyMarker, uploadIdMarker: NextUploadIdMarker } }
        : { uploads };
    });
  }

  /** A create-only write: 412 is "exists"; 409 (a conflicting conditional write) is retried. */
  #createOnly(
    deadline: Deadline,
    operation: string,
    commit: boolean,
    send: (abortSignal: AbortSignal | undefined) => Promise<unknown>,
  ): Promise<CreateOutcome> {
    return this.#run(deadline, operation, !commit, async (abortSignal) => {
      for (let attempt = 1; ; attempt++) {
        try {
          await send(abortSignal);
          return "created";
        } catch (error) {
          const status = statusOf(error);
          if (status === 412) return "exists";
          if (status !== 409 || attempt >= CONFLICT_RETRIES) throw error;
        }
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
        throw deadline.failure() ?? asArtifactError(error, `S3 ${operation}`);
      }
    });
  }
}

function withSignal(signal: AbortSignal | undefined): { abortSignal?: AbortSignal } {
  return signal ? { abortSignal: signal } : {};
}

function rangeHeader(window: ByteWindow): string {
  return "suffix" in window ? `bytes=-${window.suffix}` : `bytes=${window.start}-${window.end}`;
}

/** The whole object's size from a Content-Range ("bytes 0-9/1234"), else the body's. */
function objectSizeOf(contentRange: string | undefined, bodyBytes: number): number {
  const total = contentRange?.match(/\/(\d+)$/)?.[1];
  return total === undefined ? bodyBytes : Number(total);
}

function etagOf(etag: string | undefined, key: string): string {
  if (!etag) throw unavailable(`S3 gave no ETag for a part of ${key}`);
  return etag;
}

export function statusOf(error: unknown): number | undefined {
  const metadata = (error as { $metadata?: { httpStatusCode?: unknown } } | null)?.$metadata;
  return typeof metadata?.httpStatusCode === "number" ? metadata.httpStatusCode : undefined;
}
