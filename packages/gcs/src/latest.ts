import type { Deadline, Scope } from "@artifact-kit/core";
import type { VersionAllocator } from "./allocator.js";
import type { BucketClient, ListRequest, StoredObject } from "./bucket-client.js";
import type { ObjectLayout } from "./layout.js";

/** The largest page one GCS listing returns. */
export const GCS_MAX_RESULTS = 1_000;

/** How many versions below the high-water mark the first look covers. */
const FIRST_WINDOW = 8;
/** How much wider each further look reaches down, when the top versions are all deleted. */
const WIDENING = 16;

/**
 * Finds the highest published version of a name without reading every version. GCS lists in
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

  async latestObject(
    scope: Scope,
    key: string,
    deadline: Deadline,
  ): Promise<StoredObject | undefined> {
    const top = await this.#allocator.highWaterHint(scope, key, deadline);
    const prefix = this.#layout.versionsPrefix(scope, key);
    let window = FIRST_WINDOW;
    let start = Math.max(1, top - window + 1);
    let endOffset: string | undefined;
    for (;;) {
      const objects = await listAll(this.#client, deadline, {
        prefix,
        maxResults: GCS_MAX_RESULTS,
        startOffset: this.#layout.versionObject(scope, key, start),
        ...(endOffset === undefined ? {} : { endOffset }),
      });
      const latest = objects[objects.length - 1];
      if (latest !== undefined || start === 1) return latest;
      endOffset = this.#layout.versionObject(scope, key, start);
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
): Promise<StoredObject[]> {
  const objects: StoredObject[] = [];
  let pageToken: string | undefined;
  do {
    const page = await client.list(deadline, { ...request, ...(pageToken ? { pageToken } : {}) });
    objects.push(...page.objects);
    pageToken = page.nextPageToken;
  } while (pageToken && objects.length < atLeast);
  return objects;
}
