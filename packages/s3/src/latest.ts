import type { Deadline, Scope } from "@artifact-kit/core";
import { highestUnderMark } from "@artifact-kit/core/adapter";
import type { VersionAllocator } from "./allocator.js";
import type { BucketClient, ListedObject, ListRequest } from "./bucket-client.js";
import { S3_MAX_KEYS } from "./config.js";
import type { ObjectLayout } from "./layout.js";

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

  /** The key of the name's highest published object, or undefined when none is left. */
  async latestObject(scope: Scope, key: string, deadline: Deadline): Promise<string | undefined> {
    const highWater = await this.#allocator.highWaterHint(scope, key, deadline);
    const prefix = this.#layout.versionsPrefix(scope, key);
    const latest = await highestUnderMark(highWater, async (from, below) => {
      const after = from > 1 ? this.#layout.versionObject(scope, key, from - 1) : undefined;
      const objects = await listAll(
        this.#client,
        deadline,
        {
          prefix,
          maxKeys: below === undefined ? S3_MAX_KEYS : Math.min(below - from, S3_MAX_KEYS),
          ...(after === undefined ? {} : { startAfter: after }),
        },
        below === undefined ? Number.POSITIVE_INFINITY : below - from,
      );
      return objects[objects.length - 1];
    });
    return latest?.key;
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
