import type { Deadline } from "@artifact-kit/core";
import type { ObjectBucket, ObjectInfo } from "./bucket.js";
import type { ObjectLayout } from "./layout.js";
import { listAll } from "./listing.js";
import { checkedChunk, recordOf } from "./record-chunks.js";
import { lastOf } from "./version-ranges.js";

/** Chunks checked at once by repair: bounded, since a store may have many thousands. */
const CHUNKS_AT_ONCE = 16;

/**
 * Reads every record chunk under the prefix and deletes the ones that do not check (wrong
 * key, unparseable, a record of another scope, name or range) and the ones that record a
 * version since deleted: readers already ignore the first and skip such records, but a
 * deleted version's record (its metadata, not its data) should not outlive it for good. A
 * reader writes the chunk again, from what is live; a chunk is only ever a cache, so
 * removing one loses nothing. Two requests per chunk (its read and a listing of its range).
 * The number removed.
 */
export async function removeStaleChunks(
  bucket: ObjectBucket,
  layout: ObjectLayout,
  manifestFormat: string,
  deadline: Deadline,
): Promise<number> {
  const root = layout.recordChunksRoot();
  const objects = await listAll(bucket, deadline, { prefix: root, maxKeys: bucket.maxListKeys });
  let removed = 0;
  for (let at = 0; at < objects.length; at += CHUNKS_AT_ONCE) {
    const batch = objects.slice(at, at + CHUNKS_AT_ONCE);
    const stale = await Promise.all(
      batch.map((object) => isStale(bucket, layout, manifestFormat, deadline, object)),
    );
    const doomed = batch.filter((_, index) => stale[index]);
    await Promise.all(
      doomed.map((object) =>
        bucket.delete(deadline, {
          key: object.key,
          ...(object.match ? { match: object.match } : {}),
        }),
      ),
    );
    removed += doomed.length;
  }
  return removed;
}

async function isStale(
  bucket: ObjectBucket,
  layout: ObjectLayout,
  manifestFormat: string,
  deadline: Deadline,
  object: ObjectInfo,
): Promise<boolean> {
  const root = layout.recordChunksRoot();
  // <root><scope digest>/<name key>/<first>-<span>
  const [digest = "", key = ""] = object.key.slice(root.length).split("/");
  const range = layout.recordChunkRange(object.key, `${root}${digest}/${key}/`);
  if (range === undefined) return true;
  const stored = await bucket.get(deadline, object.key);
  if (!stored) return false; // removed meanwhile
  const chunk = checkedChunk(stored.bytes, range, manifestFormat, digest, key);
  if (!chunk) return true;
  const prefix = layout.versionsPrefix(chunk.scope, key);
  const listed = await listAll(bucket, deadline, {
    prefix,
    maxKeys: bucket.maxListKeys,
    ...(range.first > 1
      ? { startAfter: layout.versionObject(chunk.scope, key, range.first - 1) }
      : {}),
    endBefore: layout.versionObject(chunk.scope, key, lastOf(range) + 1),
  });
  const live = new Map(listed.map((found) => [layout.versionOf(found.key, prefix), found]));
  for (const version of chunk.records.keys()) {
    const found = live.get(version);
    if (!found || !recordOf(chunk.records, version, found)) return true;
  }
  return false;
}
