import { randomUUID } from "node:crypto";
import type { Deadline } from "@artifact-kit/core";
import type { BucketClient } from "./bucket-client.js";
import { MAX_PART_BYTES } from "./config.js";
import type { ObjectLayout } from "./layout.js";
import { encodeArtifactObject, encodeTrailer } from "./manifest.js";
import type { WriteVersion } from "./publisher.js";

interface MultipartUpload {
  readonly key: string;
  readonly uploadId: string;
}

/**
 * The bytes of one streamed upload, staged so that no more than one part is ever held: the
 * data goes to a multipart upload of its own staging object, started at the first full part.
 * An upload that never fills a part stays in memory and is published with one PutObject.
 * At publication the staged data is copied server-side (UploadPartCopy) into a multipart
 * upload on the version's key, the manifest trailer is uploaded as its last part, and the
 * upload is completed create-only: the commit point.
 */
export class StagedUpload {
  readonly #client: BucketClient;
  readonly #deadline: Deadline;
  readonly #stagingKey: string;
  readonly #partBytes: number;
  /** Allocated at the first write, so an open upload that writes nothing holds nothing. */
  #part = new Uint8Array(0);
  #filled = 0;
  #staging: MultipartUpload | undefined;
  readonly #etags: string[] = [];
  #stagedBytes = 0;
  #stagingCompleted = false;

  constructor(client: BucketClient, layout: ObjectLayout, partBytes: number, deadline: Deadline) {
    this.#client = client;
    this.#deadline = deadline;
    this.#stagingKey = layout.uploadObject(randomUUID());
    this.#partBytes = partBytes;
  }

  /** Copies the lent chunk into the part buffer, uploading each part as it fills. */
  async write(chunk: Uint8Array): Promise<void> {
    if (this.#part.byteLength === 0) this.#part = new Uint8Array(this.#partBytes);
    let at = 0;
    while (at < chunk.byteLength) {
      const take = Math.min(this.#part.byteLength - this.#filled, chunk.byteLength - at);
      this.#part.set(chunk.subarray(at, at + take), this.#filled);
      this.#filled += take;
      at += take;
      if (this.#filled === this.#part.byteLength) await this.#flushPart();
    }
  }

  /**
   * Ends the data and returns how to write it as a version: one PutObject when it fit one
   * part, else a server-side copy of the completed staging object.
   */
  async seal(commitCreateOnly: boolean): Promise<WriteVersion> {
    if (!this.#staging) {
      const data = this.#part.subarray(0, this.#filled);
      return (manifest, objectKey) =>
        this.#client.createOnly(
          this.#deadline,
          objectKey,
          encodeArtifactObject(manifest, data),
          true,
        );
    }
    if (this.#filled > 0) await this.#flushPart();
    await this.#client.completeMultipart(this.#deadline, this.#staging, this.#etags, {
      createOnly: false,
      commit: false,
    });
    this.#stagingCompleted = true;
    return (manifest, objectKey) =>
      this.#publishCopy(objectKey, encodeTrailer(manifest), commitCreateOnly);
  }

  /** Removes what was staged; never throws. */
  async discard(): Promise<void> {
    if (this.#staging && !this.#stagingCompleted) await this.#client.abortQuietly(this.#staging);
    if (this.#stagingCompleted) await this.#client.removeQuietly(this.#stagingKey);
  }

  async #flushPart(): Promise<void> {
    this.#staging ??= {
      key: this.#stagingKey,
      uploadId: await this.#client.startMultipart(this.#deadline, this.#stagingKey),
    };
    const body = this.#part.subarray(0, this.#filled);
    const etag = await this.#client.uploadPart(
      this.#deadline,
      this.#staging,
      this.#etags.length + 1,
      body,
    );
    this.#etags.push(etag);
    this.#stagedBytes += this.#filled;
    this.#filled = 0;
  }

  async #publishCopy(
    objectKey: string,
    trailer: Uint8Array,
    createOnly: boolean,
  ): Promise<"created" | "exists"> {
    const deadline = this.#deadline;
    const upload: MultipartUpload = {
      key: objectKey,
      uploadId: await this.#client.startMultipart(deadline, objectKey),
    };
    let outcome: "created" | "exists" | undefined;
    try {
      const etags: string[] = [];
      for (const range of copyRanges(this.#stagedBytes)) {
        const source = { key: this.#stagingKey, ...range };
        etags.push(await this.#client.copyPart(deadline, upload, etags.length + 1, source));
      }
      etags.push(await this.#client.uploadPart(deadline, upload, etags.length + 1, trailer));
      deadline.check();
      outcome = await this.#client.completeMultipart(deadline, upload, etags, {
        createOnly,
        commit: true,
      });
      return outcome;
    } finally {
      if (outcome !== "created") await this.#client.abortQuietly(upload);
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
