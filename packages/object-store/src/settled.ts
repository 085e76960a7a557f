import type { Deadline, Scope } from "@artifact-kit/core";
import type { ObjectBucket, ObjectInfo } from "./bucket.js";
import type { ObjectLayout } from "./layout.js";
import { listAll } from "./listing.js";
import type { Tombstones } from "./tombstones.js";
import { inRange, lastOf, type VersionRange } from "./version-ranges.js";

/**
 * Which ranges are settled: every version in them allocated (the caller checks the
 * high-water mark) and each allocated one published, deleted, or given up on: its allocation
 * is older than `settleMs`, so the put that claimed it is taken to have died. Settledness
 * only decides when a chunk is worth writing; a put that publishes in a range after its
 * chunk was written is still listed, and read from its manifest (it costs a read, it is never
 * missed). Three listing requests per range of the top span (published versions,
 * allocations, and deletion markers when an allocation is young), once per range.
 */
export async function settledRanges(
  parts: { bucket: ObjectBucket; layout: ObjectLayout; tombstones: Tombstones },
  page: { scope: Scope; key: string; deadline: Deadline },
  top: VersionRange,
  candidates: readonly VersionRange[],
  settleMs: number,
): Promise<{ ranges: VersionRange[]; published: Map<number, ObjectInfo> }> {
  const { bucket, layout, tombstones } = parts;
  const { scope, key, deadline } = page;
  const last = lastOf(top);
  const versionsPrefix = layout.versionsPrefix(scope, key);
  const allocationsPrefix = layout.allocationsPrefix(scope, key);
  const [objects, allocations] = await Promise.all([
    listAll(bucket, deadline, {
      prefix: versionsPrefix,
      maxKeys: bucket.maxListKeys,
      ...(top.first > 1 ? { startAfter: layout.versionObject(scope, key, top.first - 1) } : {}),
      endBefore: layout.versionObject(scope, key, last + 1),
    }),
    // Allocation numbers are inverted: the range's highest version lists first.
    listAll(bucket, deadline, {
      prefix: allocationsPrefix,
      maxKeys: bucket.maxListKeys,
      startAfter: layout.allocationObject(scope, key, last + 1),
      endBefore: layout.allocationObject(scope, key, top.first - 1),
    }),
  ]);
  const published = new Map<number, ObjectInfo>();
  for (const object of objects) {
    const version = layout.versionOf(object.key, versionsPrefix);
    if (version !== undefined) published.set(version, object);
  }
  const cutoff = Date.now() - settleMs;
  const young: number[] = [];
  for (const allocation of allocations) {
    const version = layout.allocatedVersionOf(allocation.key, allocationsPrefix);
    if (version === undefined || published.has(version)) continue;
    if (allocation.lastModified > cutoff) young.push(version);
  }
  young.sort((a, b) => a - b);
  const deleted =
    young.length === 0
      ? new Set<number>()
      : await tombstones.deletedAmong(scope, key, young, deadline);
  const unsettled = young.filter((version) => !deleted.has(version));
  return {
    ranges: candidates.filter((range) => !unsettled.some((version) => inRange(range, version))),
    published,
  };
}
