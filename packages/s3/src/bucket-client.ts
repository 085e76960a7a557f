import { type Deadline, unavailable } from "@artifact-kit/core";
import type * as store from "@artifact-kit/object-store";
import {
  BucketRequests,
  guardedStream,
  objectSizeOf,
  requestFailure,
  withSignal,
} from "@artifact-kit/object-store";
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
import { type MultipartCompletion, S3_MAX_KEYS } from "./config.js";
import { S3Staging } from "./staging.js";

/** One multipart upload in progress. */
export interface MultipartUpload {
  readonly key: string;
  readonly uploadId: string;
}

/** Conflicting conditional writes on one key: S3 answers 409 and asks for a retry. */
const CONFLICT_RETRIES = 3;

/**
 * The object-store protocol's bucket on S3: bounds in-flight requests, hands the deadline to
 * the SDK as its abortSignal, turns the statuses the protocol expects (404, 412) into values,
 * and every other failure into `unavailable` (or the deadline's own `timeout` / `aborted`).
 * Commit writes are never abandoned at the deadline, so their outcome is never misreported.
 * A create-only write records its request id as its body: S3 listings carry no metadata.
 */
export class S3Bucket implements store.ObjectBucket {
  readonly label = "S3";
  readonly maxListKeys = S3_MAX_KEYS;
  readonly requestIds = "body";
  /** DeleteObject answers 204 whether or not the key existed. */
  readonly tellsDeletes = false;
  readonly #client: S3Client;
  readonly #bucket: string;
  readonly #requests: BucketRequests;
  readonly #staging: { partBytes: number; completion: MultipartCompletion };

  constructor(
    client: S3Client,
    bucket: string,
    maxConcurrency: number,
    staging: { partBytes: number; completion: MultipartCompletion },
  ) {
    this.#client = client;
    this.#bucket = bucket;
    this.#requests = new BucketRequests("S3", maxConcurrency);
    this.#staging = staging;
  }

  /** PutObject with If-None-Match: * (one request). */
  createOnly(
    deadline: Deadline,
    object: store.NewObject,
    options: { commit: boolean },
  ): Promise<store.CreateOutcome> {
    return this.#createOnly(deadline, `write ${object.key}`, options.commit, (abortSignal) =>
      this.#client.send(
        new PutObjectCommand({
          Bucket: this.#bucket,
          Key: object.key,
          Body: object.body,
          ContentType: "application/octet-stream",
          IfNoneMatch: "*",
          ...(object.metadata ? { Metadata: { ...object.metadata } } : {}),
        }),
        withSignal(abortSignal),
      ),
    );
  }

  get(
    deadline: Deadline,
    key: string,
    window?: store.ByteWindow,
  ): Promise<store.ObjectBytes | undefined> {
    return this.#requests.run(deadline, `read ${key}`, true, async (abortSignal) => {
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

  head(deadline: Deadline, key: string): Promise<store.ObjectInfo | undefined> {
    return this.#requests.run(deadline, `read metadata of ${key}`, true, async (abortSignal) => {
      try {
        const response = await this.#client.send(
          new HeadObjectCommand({ Bucket: this.#bucket, Key: key }),
          withSignal(abortSignal),
        );
        return {
          key,
          size: response.ContentLength ?? 0,
          lastModified: response.LastModified?.getTime() ?? 0,
          metadata: response.Metadata ?? {},
        };
      } catch (error) {
        if (statusOf(error) === 404) return undefined;
        throw error;
      }
    });
  }

  /** One ListObjectsV2 request; `endBefore` is applied here (S3 has no end key). */
  list(deadline: Deadline, request: store.ListRequest): Promise<store.ListPage> {
    return this.#requests.run(deadline, `list ${request.prefix}`, true, async (abortSignal) => {
      const response = await this.#client.send(
        new ListObjectsV2Command({
          Bucket: this.#bucket,
          Prefix: request.prefix,
          MaxKeys: request.maxKeys,
          ...(request.delimiter ? { Delimiter: request.delimiter } : {}),
          ...(request.startAfter ? { StartAfter: request.startAfter } : {}),
          ...(request.cursor ? { ContinuationToken: request.cursor } : {}),
        }),
        withSignal(abortSignal),
      );
      const listed = (response.Contents ?? []).map((object) => ({
        key: object.Key ?? "",
        size: object.Size ?? 0,
        lastModified: object.LastModified?.getTime() ?? 0,
        ...(object.ETag ? { tag: object.ETag } : {}),
      }));
      const { endBefore } = request;
      const objects =
        endBefore === undefined ? listed : listed.filter((object) => object.key < endBefore);
      const ended = objects.length < listed.length;
      return {
        objects,
        prefixes: (response.CommonPrefixes ?? []).map((common) => common.Prefix ?? ""),
        ...(!ended && response.IsTruncated && response.NextContinuationToken
          ? { cursor: response.NextContinuationToken }
          : {}),
      };
    });
  }

  /**
   * DeleteObject, awaited like a commit; S3 cannot say whether the key existed. S3 objects
   * carry no `match` (its listings and heads leave it out), so none is ever asked for.
   */
  async delete(deadline: Deadline, target: store.DeleteTarget): Promise<boolean> {
    await this.#requests.run(deadline, `delete ${target.key}`, false, async (abortSignal) => {
      await this.#client.send(
        new DeleteObjectCommand({ Bucket: this.#bucket, Key: target.key }),
        withSignal(abortSignal),
      );
    });
    return true;
  }

  async removeQuietly(key: string): Promise<void> {
    await this.#requests.quietly((abortSignal) =>
      this.#client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: key }), {
        abortSignal,
      }),
    );
  }

  /** One Range GET, streamed; not counted against maxConcurrency. */
  readRange(deadline: Deadline, key: string, start: number, end: number) {
    const isAbsent = (error: unknown) => statusOf(error) === 404;
    return guardedStream(deadline, `S3 read ${key}`, key, isAbsent, async () => {
      const range = `bytes=${start}-${end - 1}`;
      const request = new GetObjectCommand({ Bucket: this.#bucket, Key: key, Range: range });
      const response = await this.#client.send(request, withSignal(deadline.toSignal()));
      return response.Body as AsyncIterable<Uint8Array>;
    });
  }

  openStaging(deadline: Deadline, stagingKey: string): store.StagingUpload {
    const { partBytes, completion } = this.#staging;
    return new S3Staging(this, stagingKey, partBytes, completion === "create-only", deadline);
  }

  /** Aborts, page by page, the multipart uploads under `prefix` started before `cutoff`. */
  async abortStaleUploads(deadline: Deadline, prefix: string, cutoff: number): Promise<number> {
    let aborted = 0;
    let after: { KeyMarker: string; UploadIdMarker: string } | undefined;
    do {
      const response = await this.#requests.run(
        deadline,
        `list uploads under ${prefix}`,
        true,
        (signal) =>
          this.#client.send(
            new ListMultipartUploadsCommand({ Bucket: this.#bucket, Prefix: prefix, ...after }),
            withSignal(signal),
          ),
      );
      const stale = (response.Uploads ?? []).filter(
        (upload) => (upload.Initiated?.getTime() ?? 0) < cutoff,
      );
      await Promise.all(
        stale.map((upload) =>
          this.abortQuietly({ key: upload.Key ?? "", uploadId: upload.UploadId ?? "" }),
        ),
      );
      aborted += stale.length;
      const { NextKeyMarker, NextUploadIdMarker } = response;
      after =
        response.IsTruncated && NextKeyMarker !== undefined && NextUploadIdMarker !== undefined
          ? { KeyMarker: NextKeyMarker, UploadIdMarker: NextUploadIdMarker }
          : undefined;
    } while (after);
    return aborted;
  }

  startMultipart(deadline: Deadline, key: string): Promise<string> {
    return this.#requests.run(deadline, `start upload of ${key}`, true, async (abortSignal) => {
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
    upload: MultipartUpload,
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
      throw requestFailure(deadline, error, `S3 upload part of ${upload.key}`);
    }
  }

  /** Copies bytes [start, end] inclusive of `source` into a part, server-side; its ETag. */
  copyPart(
    deadline: Deadline,
    upload: MultipartUpload,
    partNumber: number,
    source: { key: string; start: number; end: number },
  ): Promise<string> {
    return this.#requests.run(deadline, `copy into ${upload.key}`, true, async (abortSignal) => {
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
    upload: MultipartUpload,
    etags: readonly string[],
    options: { createOnly: boolean; commit: boolean },
  ): Promise<store.CreateOutcome> {
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
  async abortQuietly(upload: MultipartUpload): Promise<void> {
    await this.#requests.quietly((abortSignal) =>
      this.#client.send(
        new AbortMultipartUploadCommand({
          Bucket: this.#bucket,
          Key: upload.key,
          UploadId: upload.uploadId,
        }),
        { abortSignal },
      ),
    );
  }

  /** A create-only write: 412 is "exists"; 409 (a conflicting conditional write) is retried. */
  #createOnly(
    deadline: Deadline,
    operation: string,
    commit: boolean,
    send: (abortSignal: AbortSignal | undefined) => Promise<unknown>,
  ): Promise<store.CreateOutcome> {
    return this.#requests.run(deadline, operation, !commit, async (abortSignal) => {
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
}

function rangeHeader(window: store.ByteWindow): string {
  return "suffix" in window ? `bytes=-${window.suffix}` : `bytes=${window.start}-${window.end}`;
}

function etagOf(etag: string | undefined, key: string): string {
  if (!etag) throw unavailable(`S3 gave no ETag for a part of ${key}`);
  return etag;
}

export function statusOf(error: unknown): number | undefined {
  const metadata = (error as { $metadata?: { httpStatusCode?: unknown } } | null)?.$metadata;
  return typeof metadata?.httpStatusCode === "number" ? metadata.httpStatusCode : undefined;
}
