import type { Deadline } from "@artifact-kit/core";
import {
  type CreateOutcome,
  PartBuffer,
  type StagedTarget,
  type StagingUpload,
  withSignal,
} from "@artifact-kit/object-store";
import type { AzureBucket } from "./azure-bucket.js";
import { copySourceOf } from "./copy-source.js";
import { encodeMetadata } from "./metadata.js";

/** Bytes per Put Block From URL when a staged blob is copied into a version's blob. */
const COPY_BLOCK_BYTES = 100 * 1024 * 1024;

/**
 * One streamed upload on Azure, holding at most one block in memory. Full blocks go to a
 * staging blob (Put Block), committed at `seal` as the adapter's own blob. `complete` builds
 * the version's blob server-side: the head as a block of its own, the staged bytes copied in
 * by Put Block From URL, the tail, then Put Block List with If-None-Match: * (the publication
 * point). An upload that never fills a block stays in memory and is published by one Put
 * Blob. Uncommitted blocks left by a failed upload are never visible, and Azure discards them
 * after a week.
 */
export class BlockStaging implements StagingUpload {
  readonly #bucket: AzureBucket;
  readonly #stagingKey: string;
  readonly #deadline: Deadline;
  readonly #block: PartBuffer;
  #stagedBlocks = 0;
  #stagedBytes = 0;
  #stagingCommitted = false;

  constructor(bucket: AzureBucket, stagingKey: string, blockBytes: number, deadline: Deadline) {
    this.#bucket = bucket;
    this.#stagingKey = stagingKey;
    this.#deadline = deadline;
    this.#block = new PartBuffer(blockBytes, (block, at) => this.#stageBlock(block, at));
  }

  /** Copies the lent chunk into the block buffer, staging each block as it fills. */
  write(chunk: Uint8Array): Promise<void> {
    return this.#block.write(chunk, this.#deadline);
  }

  /** Commits the staging blob (unconditionally: its key is this upload's alone). */
  async seal(deadline: Deadline): Promise<void> {
    if (this.#stagedBlocks === 0) return;
    await this.#block.flushPending(deadline);
    await this.#commit(deadline, this.#stagingKey, this.#stagedBlocks, {
      createOnly: false,
      commit: false,
    });
    this.#stagingCommitted = true;
    this.#block.release();
  }

  async complete(deadline: Deadline, target: StagedTarget): Promise<CreateOutcome> {
    const head = target.head ?? new Uint8Array(0);
    const tail = target.tail ?? new Uint8Array(0);
    if (!this.#stagingCommitted) {
      const body = Buffer.concat([head, this.#block.pending, tail]);
      return this.#bucket.createOnly(
        deadline,
        { key: target.key, body, ...(target.metadata ? { metadata: target.metadata } : {}) },
        { commit: true },
      );
    }
    let blocks = 0;
    const stage = async (bytes: Uint8Array) => {
      if (bytes.byteLength > 0) await this.#put(deadline, target.key, blocks++, bytes);
    };
    await stage(head);
    const source = await copySourceOf(this.#bucket.blob(this.#stagingKey));
    for (let start = 0; start < this.#stagedBytes; start += COPY_BLOCK_BYTES) {
      const count = Math.min(COPY_BLOCK_BYTES, this.#stagedBytes - start);
      const index = blocks++;
      await this.#bucket.requests.run(deadline, `copy into ${target.key}`, true, (abortSignal) =>
        this.#bucket.blob(target.key).stageBlockFromURL(blockId(index), source.url, start, count, {
          ...source.options,
          ...withSignal(abortSignal),
        }),
      );
    }
    await stage(tail);
    deadline.check();
    return this.#commit(deadline, target.key, blocks, {
      createOnly: true,
      commit: true,
      ...(target.metadata ? { metadata: target.metadata } : {}),
    });
  }

  async discard(): Promise<void> {
    this.#block.release();
    if (this.#stagingCommitted) await this.#bucket.removeQuietly(this.#stagingKey);
  }

  async #stageBlock(block: Uint8Array, deadline: Deadline): Promise<void> {
    await this.#put(deadline, this.#stagingKey, this.#stagedBlocks, block);
    this.#stagedBlocks++;
    this.#stagedBytes += block.byteLength;
  }

  /** Put Block of block `index`; uncommitted (invisible) until Put Block List. */
  #put(deadline: Deadline, key: string, index: number, bytes: Uint8Array): Promise<unknown> {
    return this.#bucket.requests.run(deadline, `stage a block of ${key}`, true, (abortSignal) =>
      this.#bucket
        .blob(key)
        .stageBlock(blockId(index), bytes, bytes.byteLength, withSignal(abortSignal)),
    );
  }

  /** Put Block List of blocks 0..count-1; create-only (If-None-Match: *) when asked. */
  #commit(
    deadline: Deadline,
    key: string,
    count: number,
    options: { createOnly: boolean; commit: boolean; metadata?: Readonly<Record<string, string>> },
  ): Promise<CreateOutcome> {
    const ids = Array.from({ length: count }, (_, index) => blockId(index));
    return this.#bucket.createWith(deadline, `commit ${key}`, options.commit, (abortSignal) =>
      this.#bucket.blob(key).commitBlockList(ids, {
        ...withSignal(abortSignal),
        ...(options.createOnly ? { conditions: { ifNoneMatch: "*" } } : {}),
        ...(options.metadata ? { metadata: encodeMetadata(options.metadata) } : {}),
      }),
    );
  }
}

/**
 * Block `index`'s id: Azure wants base64 ids of one length within a blob, and ids chosen by
 * index make a retried Put Block replace its own earlier attempt.
 */
export function blockId(index: number): string {
  return Buffer.from(`block-${String(index).padStart(6, "0")}`).toString("base64");
}
