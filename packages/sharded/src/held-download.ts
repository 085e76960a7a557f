import type { ArtifactMeta, Deadline, DownloadSource } from "@artifact-kit/core";
import { type OpenTransfers, TransferHold } from "./held-transfer.js";
import type { WorkerLease } from "./lease.js";

/**
 * A worker's download, passed through unchanged, that keeps the worker leased until the
 * last byte of its range has been handed out, a read fails, or it is cancelled.
 */
export class HeldDownload implements DownloadSource {
  readonly meta: ArtifactMeta;
  readonly offset: number;
  readonly length: number;
  readonly #source: DownloadSource;
  readonly #hold: TransferHold;
  #delivered = 0;

  constructor(source: DownloadSource, lease: WorkerLease, deadline: Deadline, open: OpenTransfers) {
    this.meta = source.meta;
    this.offset = source.offset;
    this.length = source.length;
    this.#source = source;
    this.#hold = new TransferHold(lease, deadline, open, () => source.cancel());
  }

  async read(): Promise<Uint8Array | undefined> {
    let piece: Uint8Array | undefined;
    try {
      piece = await this.#hold.run("download", () => this.#source.read());
    } catch (error) {
      // A source that fails a read has stopped (core's verified source cancels itself).
      this.#hold.end();
      throw error;
    }
    this.#delivered += piece?.byteLength ?? 0;
    // A reader that stops at `length` bytes, without the final read, must not pin the worker.
    if (piece === undefined || this.#delivered >= this.length) this.#hold.end();
    return piece;
  }

  async cancel(): Promise<void> {
    try {
      await this.#source.cancel();
    } finally {
      this.#hold.end();
    }
  }
}
