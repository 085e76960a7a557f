import {
  Deadline,
  type RequestOptions,
  validateOptionKeys,
  validatePositiveInteger,
} from "@artifact-kit/core";
import type { ObjectBucket } from "./bucket.js";
import type { ObjectLayout } from "./layout.js";
import { listAll } from "./listing.js";
import { removeStaleChunks } from "./repair-chunks.js";

export interface RepairOptions extends RequestOptions {
  /** Only multipart uploads and staging objects older than this are removed (default 24 h). */
  olderThanMs?: number;
}

export interface RepairReport {
  /** Multipart uploads aborted: streamed uploads whose owner went away before finishing. */
  readonly abortedUploads: number;
  /** Completed staging objects removed: uploads that died between staging and publication. */
  readonly removedStaging: number;
  /**
   * Record chunks removed because they do not check, or record a version since deleted
   * (readers write them again from what is live).
   */
  readonly removedChunks: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Cleans what crashed or abandoned uploads leave under the prefix: incomplete multipart
 * uploads and staging objects; and removes record chunks that do not check or that record
 * deleted versions (being create-only, a chunk is only written again once it is gone).
 * Published versions, allocations and bindings are never touched. Anything younger than
 * `olderThanMs` may belong to an upload still running.
 */
export async function repairPrefix(
  bucket: ObjectBucket,
  layout: ObjectLayout,
  manifestFormat: string,
  options?: RepairOptions,
): Promise<RepairReport> {
  const opts = validateOptionKeys(options, ["timeoutMs", "signal", "olderThanMs"]);
  const olderThanMs =
    opts.olderThanMs === undefined
      ? DAY_MS
      : validatePositiveInteger(opts.olderThanMs, "olderThanMs");
  const deadline = Deadline.start(opts);
  const cutoff = Date.now() - olderThanMs;
  let abortedUploads = 0;
  // Only the adapter's own folders: with an empty prefix, the bucket may hold other uploads.
  if (bucket.abortStaleUploads) {
    for (const prefix of layout.ownedPrefixes()) {
      abortedUploads += await bucket.abortStaleUploads(deadline, prefix, cutoff);
    }
  }
  const staged = await listAll(bucket, deadline, {
    prefix: layout.uploadsPrefix(),
    maxKeys: bucket.maxListKeys,
  });
  const stale = staged.filter((object) => object.lastModified < cutoff);
  await Promise.all(stale.map((object) => bucket.removeQuietly(object.key)));
  const removedChunks = await removeStaleChunks(bucket, layout, manifestFormat, deadline);
  return Object.freeze({ abortedUploads, removedStaging: stale.length, removedChunks });
}
