import { once } from "node:events";
import type { Writable } from "node:stream";
import { finished } from "node:stream/promises";
import { asArtifactError, type Deadline, unavailable } from "@artifact-kit/core";
import {
  type CreateOutcome,
  raceSignal,
  type StagedTarget,
  type StagingUpload,
} from "@artifact-kit/object-store";
import type { Bucket } from "@google-cloud/storage";
import type { GcsBucket } from "./bucket-client.js";

/**
 * A resumable upload to a staging object, create-only; at completion the manifest header is
 * written beside it, the two are composed server-side, and the result is copied create-only
 * to the version's name: the publication point. No byte is buffered beyond one chunk.
 */
export class GcsStaging implements StagingUpload {
  readonly #bucket: GcsBucket;
  readonly #parts: { data: string; header: string; composed: string };
  readonly #stream: Writable;
  /** The upload's deadline: a write waiting for the stream to drain ends by it. */
  readonly #deadline: Deadline;
  #streamFailure: unknown;

  /** Opens the resumable upload (not counted against maxConcurrency: it lasts the transfer). */
  constructor(bucket: GcsBucket, storage: Bucket, stagingKey: string, deadline: Deadline) {
    this.#bucket = bucket;
    this.#deadline = deadline;
    this.#parts = {
      data: `${stagingKey}/data`,
      header: `${stagingKey}/header`,
      composed: `${stagingKey}/composed`,
    };
    this.#stream = storage.file(this.#parts.data).createWriteStream({
      resumable: true,
      contentType: "application/octet-stream",
      preconditionOpts: { ifGenerationMatch: 0 },
    });
    this.#stream.on("error", (error) => {
      this.#streamFailure ??= error;
    });
  }

  async write(chunk: Uint8Array): Promise<void> {
    const failure = this.#failed();
    if (failure) throw failure;
    // The chunk is only lent, and the client's stream keeps what it has not sent yet.
    if (this.#stream.write(new Uint8Array(chunk))) return;
    // A connection that stops taking bytes never drains: the wait ends by the deadline, and
    // the upload's discard then destroys the stream.
    const signal = this.#deadline.toSignal();
    await once(this.#stream, "drain", signal ? { signal } : {}).catch((error: unknown) => {
      throw this.#deadline.failure() ?? this.#failed() ?? asArtifactError(error, "GCS upload");
    });
  }

  async seal(deadline: Deadline): Promise<void> {
    this.#stream.end();
    await raceSignal(finished(this.#stream), deadline.toSignal()).catch((error: unknown) => {
      throw deadline.failure() ?? this.#failed() ?? asArtifactError(error, "GCS upload");
    });
  }

  async complete(deadline: Deadline, target: StagedTarget): Promise<CreateOutcome> {
    if (target.tail !== undefined) {
      throw unavailable("GCS staging cannot put bytes after the data (header formats only)");
    }
    let source = this.#parts.data;
    if (target.head !== undefined) {
      const header = { key: this.#parts.header, body: target.head };
      await this.#bucket.createOnly(deadline, header, { commit: false });
      await this.#bucket.compose(deadline, [this.#parts.header, source], this.#parts.composed);
      source = this.#parts.composed;
    }
    deadline.check();
    return this.#bucket.copyCreateOnly(deadline, source, target);
  }

  async discard(): Promise<void> {
    this.#stream.destroy();
    await Promise.all(Object.values(this.#parts).map((part) => this.#bucket.removeQuietly(part)));
  }

  #failed() {
    return this.#streamFailure === undefined
      ? undefined
      : asArtifactError(this.#streamFailure, "GCS upload");
  }
}
