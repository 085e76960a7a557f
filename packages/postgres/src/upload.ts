import { type ArtifactMeta, Deadline, unavailable } from "@artifact-kit/core";
import {
  CLEANUP_TIMEOUT_MS,
  type DataDigest,
  TRANSFER_BLOCK_BYTES,
  type UploadTarget,
} from "@artifact-kit/core/adapter";
import type { Database } from "./database.js";
import type { Statements } from "./statements.js";

interface StagedUploadInput {
  readonly database: Database;
  readonly sql: Statements;
  readonly contentId: string;
  /** The upload's own deadline, for staging statements. */
  readonly deadline: Deadline;
  /** Publishes the staged blocks as one version, in one statement. */
  readonly publish: (digest: DataDigest, deadline: Deadline) => Promise<ArtifactMeta>;
}

/**
 * An upload's blocks, staged under its content id outside any transaction: each full block
 * is one autocommitted INSERT that also renews the upload's lease. Chunks are gathered into
 * whole blocks first, so stored block i is always bytes [i, i + 1) * TRANSFER_BLOCK_BYTES.
 */
export class StagedUpload implements UploadTarget {
  readonly #input: StagedUploadInput;
  #block = Buffer.allocUnsafe(TRANSFER_BLOCK_BYTES);
  #filled = 0;
  #index = 0;

  constructor(input: StagedUploadInput) {
    this.#input = input;
  }

  async write(chunk: Uint8Array): Promise<void> {
    let at = 0;
    while (at < chunk.byteLength) {
      const take = Math.min(TRANSFER_BLOCK_BYTES - this.#filled, chunk.byteLength - at);
      // Copied: the chunk is only lent until this write resolves.
      this.#block.set(chunk.subarray(at, at + take), this.#filled);
      this.#filled += take;
      at += take;
      if (this.#filled === TRANSFER_BLOCK_BYTES) await this.#stage();
    }
  }

  async publish(digest: DataDigest, deadline: Deadline): Promise<ArtifactMeta> {
    if (this.#filled > 0) await this.#stage();
    return this.#input.publish(digest, deadline);
  }

  async discard(): Promise<void> {
    const { database, sql, contentId } = this.#input;
    // After a publish whose answer was lost this removes nothing if the publish committed.
    // Not under the upload's deadline, but bounded: see CLEANUP_TIMEOUT_MS.
    const deadline = Deadline.start({ timeoutMs: CLEANUP_TIMEOUT_MS });
    await database.query(deadline, "upload discard", sql.discardUpload, [contentId]);
  }

  async #stage(): Promise<void> {
    const { database, sql, contentId, deadline } = this.#input;
    const data = this.#block.subarray(0, this.#filled);
    const rows = await database.query(deadline, "upload", sql.stageBlock, [
      contentId,
      this.#index,
      data,
    ]);
    if (rows.length !== 1) {
      throw unavailable("the upload's lease ran out and repair removed its staged blocks");
    }
    this.#index += 1;
    this.#filled = 0;
  }
}
