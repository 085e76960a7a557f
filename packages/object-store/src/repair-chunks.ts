import type { Deadline } from "@artifact-kit/core";
import type { ObjectBucket } from "./bucket.js";
import type { ObjectLayout } from "./layout.js";
import { listAll } from "./listing.js";
import { chunkChecks } from "./record-chunks.js";

/** Chunks read at once by repair: bounded, since a name may have thousands. */
const CHUNKS_AT_ONCE = 16;

/**
 * Reads every record chunk under the prefix and deletes the ones that do not check (wrong
 * key, unparseable, a record of another scope, name or range): readers already ignore them,
 * and a reader writes the chunk again once it is gone. A chunk is only ever a cache, so
 * removing one loses nothing. The number removed.
 */
export async function removeBadChunks(
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
    const bad = await Promise.all(
      batch.map(async (object) => {
        // <root><scope digest>/<name key>/<first>-<span>
        const [digest = "", key = ""] = object.key.slice(root.length).split("/");
        const range = layout.recordChunkRange(object.key, `${root}${digest}/${key}/`);
        if (range === undefined) return true;
        const stored = await bucket.get(deadline, object.key);
        if (!stored) return false; // removed meanwhile
        return !chunkChecks(stored.bytes, range, manifestFormat, digest, key);
      }),
    );
    const doomed = batch.filter((_, index) => bad[index]);
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
