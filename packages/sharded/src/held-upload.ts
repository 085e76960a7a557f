import {
  type ArtifactMeta,
  type Deadline,
  isArtifactError,
  type UploadSink,
} from "@artifact-kit/core";
import { type OpenTransfers, TransferHold } from "./held-transfer.js";
import type { WorkerLease } from "./lease.js";

/**
 * A worker's upload, passed through unchanged, that keeps the worker leased until the
 * upload is published, fails or is aborted.
 */
export class HeldUpload implements UploadSink {
  readonly #sink: UploadSink;
  readonly #hold: TransferHold;

  constructor(sink: UploadSink, lease: WorkerLease, deadline: Deadline, open: OpenTransfers) {
    this.#sink = sink;
    this.#hold = new TransferHold(lease, deadline, open, (failure) => sink.abort(failure));
  }

  async write(chunk: Uint8Array): Promise<void> {
    try {
      await this.#hold.run("upload", () => this.#sink.write(chunk));
    } catch (error) {
      this.#endUnlessRefused(error);
      throw error;
    }
  }

  async finish(): Promise<ArtifactMeta> {
    try {
      const meta = await this.#hold.run("upload", () => this.#sink.finish());
      this.#hold.end();
      return meta;
    } catch (error) {
      this.#endUnlessRefused(error);
      throw error;
    }
  }

  async abort(reason?: unknown): Promise<void> {
    try {
      await this.#sink.abort(reason);
    } finally {
      this.#hold.end();
    }
  }

  /**
   * Core's upload sink refuses a chunk that is not bytes, or a call made while another is
   * in flight, without failing the upload (the caller may go on); every other failure ends it.
   */
  #endUnlessRefused(error: unknown): void {
    const field = isArtifactError(error, "invalid_argument") ? error.detail?.field : undefined;
    if (field !== "chunk" && field !== "upload") this.#hold.end();
  }
}
