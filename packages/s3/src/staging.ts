import { type Deadline, unavailable } from "@artifact-kit/core";
import {
  type CreateOutcome,
  concatBytes,
  PartBuffer,
  type StagedTarget,
  type StagingUpload,
} from "@artifact-kit/object-store";
import type { MultipartUpload, S3Bucket } from "./bucket-client.js";
import { MAX_PART_BYTES } from "./config.js";

/**
 * The bytes of one streamed upload, staged so that no more than one part is ever held: the
 * data goes to a multipart upload of its own staging object, started at the first full part.
 * An upload that never fills a part stays in memory and is published with one PutObject.
 * At completion the staged data is copied server-side (UploadPartCopy) into a multipart
 * upload on the version's key, the manifest trailer is uploaded as its last part, and the
 * upload is completed create-only (If-None-Match: *): the commit point.
 */
export class S3Staging implements StagingUpload {
  readonly #bucket: S3Bucket;
  readonly #deadline: Deadline;
  readonly #stagingKey: string;
  readonly #createOnlyCompletion: boolean;
  readonly #part: PartBuffer;
  #staging: MultipartUpload | undefined;
  readonly #etags: string[] = [];
  #stagedBytes = 0;
  #stagingCompleted = false;

  constructor(
    bucket: S3Bucket,
    stagingKey: string,
    partBytes: number,
    createOnlyCompletion: boolean,
    deadline: Deadline,
  ) {
    this.#bucket = bucket;
    this.#deadline = deadline;
    this.#stagingKey = stagingKey;
    this.#createOnlyCompletion = createOnlyCompletion;
    this.#part = new PartBuffer(partBytes, (part, at) => this.#uploadPart(part, at));
  }

  /** Copies the lent chunk into the part buffer, uploading each part as it fills. */
  write(chunk: Uint8Array): Promise<void> {
    return this.#part.write(chunk, this.#deadline);
  }

  /** Uploads the last part and completes the staging object (unless it all fit one part). */
  async seal(deadline: Deadline): Promise<void> {
    if (!this.#staging) return;
    await this.#part.flushPending(deadline);
    await this.#bucket.completeMultipart(deadline, this.#staging, this.#etags, {
      createOnly: false,
      commit: false,
    });
    this.#stagingCompleted = true;
    this.#part.release();
  }

  /** One PutObject when the data fit one part, else a server-side copy with the trailer. */
  async complete(deadline: Deadline, target: StagedTarget): Promise<CreateOutcome> {
    if (target.head !== undefined) {
      throw unavailable("S3 staging cannot put bytes before the data (trailer formats only)");
    }
    const tail = target.tail ?? new Uint8Array(0);
    if (!this.#staging) {
      const body = concatBytes(this.#part.pending, tail);
      const metadata = target.metadata ? { metadata: target.metadata } : {};
      return this.#bucket.createOnly(
        deadline,
        { key: target.key, body, ...metadata },
        {
          commit: true,
        },
      );
    }
    return this.#publishCopy(deadline, target.key, tail);
  }

  /** Removes what was staged; never throws. */
  async discard(): Promise<void> {
    this.#part.release();
    if (this.#staging && !this.#stagingCompleted) await this.#bucket.abortQuietly(this.#staging);
    if (this.#stagingCompleted) await this.#bucket.removeQuietly(this.#stagingKey);
  }

  async #uploadPart(part: Uint8Array, deadline: Deadline): Promise<void> {
    this.#staging ??= {
      key: this.#stagingKey,
      uploadId: await this.#bucket.startMultipart(deadline, this.#stagingKey),
    };
    const etag = await this.#bucket.uploadPart(
      deadline,
      this.#staging,
      this.#etags.length + 1,
      part,
    );
    this.#etags.push(etag);
    this.#stagedBytes += part.byteLength;
  }

  async #publishCopy(deadline: Deadline, key: string, tail: Uint8Array): Promise<CreateOutcome> {
    const upload: MultipartUpload = {
      key,
      uploadId: await this.#bucket.startMultipart(deadline, key),
    };
    let outcome: CreateOutcome | undefined;
    try {
      const etags: string[] = [];
      for (const range of copyRanges(this.#stagedBytes)) {
        const source = { key: this.#stagingKey, ...range };
        etags.push(await this.#bucket.copyPart(deadline, upload, etags.length + 1, source));
      }
      if (tail.byteLength > 0) {
        etags.push(await this.#bucket.uploadPart(deadline, upload, etags.length + 1, tail));
      }
      deadline.check();
      outcome = await this.#bucket.completeMultipart(deadline, upload, etags, {
        createOnly: this.#createOnlyCompletion,
        commit: true,
      });
      return outcome;
    } finally {
      if (outcome !== "created") await this.#bucket.abortQuietly(upload);
    }
  }
}

/**
 * Inclusive byte ranges that cover `size` in as few copied parts as S3 allows (at most 5 GiB
 * each), of equal length so none falls under the 5 MiB minimum when `size` is at least that.
 */
function copyRanges(size: number): { start: number; end: number }[] {
  const count = Math.ceil(size / MAX_PART_BYTES);
  const length = Math.ceil(size / count);
  return Array.from({ length: count }, (_, index) => ({
    start: index * length,
    end: Math.min(size, (index + 1) * length) - 1,
  }));
}
