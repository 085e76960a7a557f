import {
  Deadline,
  type RequestOptions,
  validateOptionKeys,
  validatePositiveInteger,
} from "@artifact-kit/core";
import type { BucketClient } from "./bucket-client.js";
import { S3_MAX_KEYS } from "./config.js";
import type { ObjectLayout } from "./layout.js";

export interface RepairOptions extends RequestOptions {
  /** Only multipart uploads and staging objects older than this are removed (default 24 h). */
  olderThanMs?: number;
}

export interface RepairReport {
  /** Multipart uploads aborted: streamed uploads whose owner went away before finishing. */
  readonly abortedUploads: number;
  /** Completed staging objects removed: uploads that died between staging and publication. */
  readonly removedStaging: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Cleans what crashed or abandoned uploads leave under the prefix: incomplete multipart
 * uploads and staging objects. Published versions, allocations and bindings are never
 * touched. Anything younger than `olderThanMs` may belong to an upload still running.
 */
export async function repairPrefix(
  client: BucketClient,
  layout: ObjectLayout,
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
  for (const prefix of layout.ownedPrefixes()) {
    let marker: { keyMarker: string; uploadIdMarker: string } | undefined;
    do {
      const page = await client.listUploads(deadline, prefix, marker);
      const stale = page.uploads.filter((upload) => upload.initiated < cutoff);
      await Promise.all(stale.map((upload) => client.abortQuietly(upload)));
      abortedUploads += stale.length;
      marker = page.next;
    } while (marker);
  }
  let removedStaging = 0;
  let continuationToken: string | undefined;
  do {
    const page = await client.list(deadline, {
      prefix: layout.uploadsPrefix(),
      maxKeys: S3_MAX_KEYS,
      ...(continuationToken ? { continuationToken } : {}),
    });
    const stale = page.objects.filter((object) => object.lastModified < cutoff);
    await Promise.all(stale.map((object) => client.removeQuietly(object.key)));
    removedStaging += stale.length;
    continuationToken = page.nextToken;
  } while (continuationToken);
  return Object.freeze({ abortedUploads, removedStaging });
}
