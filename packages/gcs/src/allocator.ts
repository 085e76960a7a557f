import { corruptArtifact, type Deadline, type Scope, scopeKey } from "@artifact-kit/core";
import {
  type ContentionPolicy,
  HighWaterCache,
  retryUnderContention,
} from "@artifact-kit/core/adapter";
import type { BucketClient } from "./bucket-client.js";

import type { ObjectLayout } from "./layout.js";
import { REQUEST_ID_KEY, wroteItself } from "./request-id.js";

/**
 * Claims versions with create-only, never-deleted allocation objects: the lock that keeps
 * concurrent writers apart and the tombstone that keeps a deleted version from coming back.
 * The cached high-water mark makes the steady state one request; a 412 means another writer
 * took that version, so after a jittered pause the high-water mark is read again from the bucket
 * and the next one is tried, for as long as the request's deadline (or maxContentionWaitMs) allows.
 */
export class VersionAllocator {
  readonly #client: BucketClient;
  readonly #layout: ObjectLayout;
  readonly #contention: ContentionPolicy;
  readonly #highWater = new HighWaterCache();

  constructor(client: BucketClient, layout: ObjectLayout, maxContentionWaitMs: number) {
    this.#client = client;
    this.#layout = layout;
    this.#contention = { maxWaitMs: maxContentionWaitMs, boundName: "maxContentionWaitMs" };
  }

  async allocate(
    scope: Scope,
    key: string,
    requestId: string,
    deadline: Deadline,
  ): Promise<number> {
    const cacheKey = this.#cacheKey(scope, key);
    return retryUnderContention(deadline, this.#contention, async (attempt) => {
      const cached = attempt === 1 ? this.#highWater.get(cacheKey) : undefined;
      const known = cached ?? (await this.#allocatedHighWater(scope, key, deadline));
      const version = this.#highWater.claimAbove(cacheKey, known);
      const objectName = this.#layout.allocationObject(scope, key, version);
      const outcome = await this.#client.createOnly(
        deadline,
        {
          name: objectName,
          body: new Uint8Array(0),
          customMetadata: { [REQUEST_ID_KEY]: requestId },
        },
        false,
      );
      if (
        outcome === "created" ||
        (await wroteItself(this.#client, deadline, objectName, requestId))
      ) {
        return version;
      }
      return undefined; // another writer took it: pause, read the high-water mark, try above
    });
  }

  /**
   * A recent high-water mark of a name: this instance's own when it has one, else read from
   * the bucket (one request) and remembered. Other instances may have gone higher since, so
   * callers treat it as a place to start looking, never as the answer.
   */
  async highWaterHint(scope: Scope, key: string, deadline: Deadline): Promise<number> {
    const cacheKey = this.#cacheKey(scope, key);
    const cached = this.#highWater.get(cacheKey);
    if (cached !== undefined) return cached;
    const known = await this.#allocatedHighWater(scope, key, deadline);
    this.#highWater.observe(cacheKey, known);
    return known;
  }

  forget(): void {
    this.#highWater.clear();
  }

  #cacheKey(scope: Scope, key: string): string {
    return `${scopeKey(scope)}\n${key}`;
  }

  /** The highest version ever allocated for a name (0 if none), from the bucket. */
  async #allocatedHighWater(scope: Scope, key: string, deadline: Deadline): Promise<number> {
    const prefix = this.#layout.allocationsPrefix(scope, key);
    const page = await this.#client.list(deadline, { prefix, maxResults: 1 });
    const highest = page.objects[0];
    if (!highest) return 0;
    const version = this.#layout.allocatedVersionOf(highest.name, prefix);
    if (version === undefined) throw corruptArtifact(`unexpected object ${highest.name}`);
    return version;
  }
}
