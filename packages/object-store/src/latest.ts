import type { Deadline, Scope } from "@artifact-kit/core";
import { highestUnderMark } from "@artifact-kit/core/adapter";
import type { VersionAllocator } from "./allocator.js";
import type { ObjectBucket, ObjectInfo } from "./bucket.js";
import type { ObjectLayout } from "./layout.js";
import { listAll } from "./listing.js";

/** Finds the highest published version of a name with core's window search (see there). */
export class LatestLookup {
  readonly #bucket: ObjectBucket;
  readonly #layout: ObjectLayout;
  readonly #allocator: VersionAllocator;

  constructor(bucket: ObjectBucket, layout: ObjectLayout, allocator: VersionAllocator) {
    this.#bucket = bucket;
    this.#layout = layout;
    this.#allocator = allocator;
  }

  /** The name's highest published object as listed, or undefined when none is left. */
  async latestObject(
    scope: Scope,
    key: string,
    deadline: Deadline,
  ): Promise<ObjectInfo | undefined> {
    const highWater = await this.#allocator.highWaterHint(scope, key, deadline);
    const prefix = this.#layout.versionsPrefix(scope, key);
    const { maxListKeys } = this.#bucket;
    return highestUnderMark(highWater, async (from, below) => {
      const wanted = below === undefined ? Number.POSITIVE_INFINITY : below - from;
      const objects = await listAll(
        this.#bucket,
        deadline,
        {
          prefix,
          maxKeys: Math.min(wanted, maxListKeys),
          ...(from > 1 ? { startAfter: this.#layout.versionObject(scope, key, from - 1) } : {}),
          ...(below === undefined
            ? {}
            : { endBefore: this.#layout.versionObject(scope, key, below) }),
        },
        wanted,
      );
      return objects[objects.length - 1];
    });
  }
}
