import type { Deadline, Scope } from "@artifact-kit/core";
import { highestUnderMark } from "@artifact-kit/core/adapter";
import type { VersionAllocator } from "./allocator.js";
import type { BucketClient, ListRequest, StoredObject } from "./bucket-client.js";
import type { ObjectLayout } from "./layout.js";

/** The largest page one GCS listing returns. */
export const GCS_MAX_RESULTS = 1_000;

/** Finds the highest published version of a name with core's window search (see there). */
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
    const highWater = await this.#allocator.highWaterHint(scope, key, deadline);
    const prefix = this.#layout.versionsPrefix(scope, key);
    return highestUnderMark(highWater, async (from, below) => {
      const objects = await listAll(this.#client, deadline, {
        prefix,
        maxResults: GCS_MAX_RESULTS,
        startOffset: this.#layout.versionObject(scope, key, from),
        ...(below === undefined
          ? {}
          : { endOffset: this.#layout.versionObject(scope, key, below) }),
      });
      return objects[objects.length - 1];
    });
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
