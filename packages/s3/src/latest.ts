import type { Deadline, Scope } from "@artifact-kit/core";
import type { VersionAllocator } from "./allocator.js";
import type { BucketClient, ListedObject, ListRequest } from "./bucket-client.js";
import { S3_MAX_KEYS } from "./config.js";
import type { ObjectLayout } from "./layout.js";

/** How many versions below the high-water mark the first look covers. */
const FIRST_WINDOW = 8;
/** How much wider each further look reaches down, when the top versions are all deleted. */
const WIDENING = 16;

/**
 * Finds the highest published version of a name without reading every version. S3 lists in
 * ascending order only, so it looks just below the name's high-water mark (listing from there
 * to the end of the name, so versions published above a stale mark are found too), and only
 * when the top versions are all gone does it reach further down, in ever wider windows: one
 * listing in the steady state whatever the number of versions, a few when many top versions
 * were deleted.
 */
export class LatestLookup {
  readonly #client: BucketClient;
  readonly #layout: ObjectLayout;
  readonly #allocator: VersionAllocator;

  constructor(client: BucketClient, layout: ObjectLayout, allocator: VersionAllocator) {
    this.#client = client;
    this.#layout = layout;
    this.#allocator = allocator;
  }

  /** The key of the name's highest published object, or undefined when none is left. */
  async latestObject(scope: Scope, key: string, deadline: Deadline): Promise<string | undefined> {
    const top = await this.#allocator.highWaterHint(scope, key, deadline);
    const prefix = this.#layout.versionsPrefix(scope, key);
    let window = FIRST_WINDOW;
    let start = Math.max(1, top - window + 1);
    // The first look reads to the end of the name; later ones only below the last start.
    let below: number | undefined;
    for (;;) {
      const after = start > 1 ? this.#layout.versionObject(scope, key, start - 1) : undefined;
      const objects = await listAll(
        this.#client,
        deadline,
        {
          prefix,
          maxKeys: below === undefined ? S3_MAX_KEYS : Math.min(below - start, S3_MAX_KEYS),
          ...(after === undefined ? {} : { startAfter: after }),
        },
        below === undefined ? Number.POSITIVE_INFINITY : below - start,
      );
      const latest = objects[objects.length - 1];
      if (latest !== undefined || start === 1) return latest?.key;
      below = start;
      window *= WIDENING;
      start = Math.max(1, start - window);
    }
  }
}

/** Objects of a listing, page after page, until `atLeast` are read or none are left. */
export async function listAll(
  client: BucketClient,
  deadline: Deadline,
  request: ListRequest,
  atLeast = Number.POSITIVE_INFINITY,
): Promise<ListedObject[]> {
  const objects: ListedObject[] = [];
  let continuationToken: string | undefined;
  do {
    const page = await client.list(deadline, {
      ...request,
      ...(continuationToken ? { continuationToken } : {}),
    });
    objects.push(...page.objects);
    continuationToken = page.nextToken;
  } while (continuationToken && objects.length < atLeast);
  return objects;
}
