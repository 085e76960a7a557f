import { corruptArtifact, type Deadline, type Scope, scopeKey } from "@artifact-kit/core";
import {
  type ContentionPolicy,
  HighWaterCache,
  retryUnderContention,
} from "@artifact-kit/core/adapter";
import type { ObjectBucket } from "./bucket.js";
import type { ObjectLayout } from "./layout.js";
import { createOwned } from "./request-ids.js";

/**
 * Claims versions with create-only, never-deleted allocation objects: the lock that keeps
 * concurrent writers apart and the tombstone that keeps a deleted version from coming back.
 * The cached high-water mark makes the steady state one request; "exists" means another
 * writer took that version, so after a jittered pause the high-water mark is read again from
 * the bucket and the next one is tried, for as long as the request's deadline (or
 * maxContentionWaitMs) allows. Each allocation records the request id of its put, so a write
 * the SDK retried after a lost response recognises itself.
 */
export class VersionAllocator {
  readonly #bucket: ObjectBucket;
  readonly #layout: ObjectLayout;
  readonly #contention: ContentionPolicy;
  readonly #highWater = new HighWaterCache();

  constructor(bucket: ObjectBucket, layout: ObjectLayout, maxContentionWaitMs: number) {
    this.#bucket = bucket;
    this.#layout = layout;
    this.#contention = { maxWaitMs: maxContentionWaitMs, boundName: "maxContentionWaitMs" };
  }

  async allocate(
    scope: Scope,
    key: string,
    requestId: string,
    deadline: Deadline,
  ): Promise<number> {
    const cacheKey = `${scopeKey(scope)}\n${key}`;
    return retryUnderContention(deadline, this.#contention, async (attempt) => {
      const cached = attempt === 1 ? this.#highWater.get(cacheKey) : undefined;
      const known = cached ?? (await this.#allocatedHighWater(scope, key, deadline));
      const version = this.#highWater.claimAbove(cacheKey, known);
      const objectKey = this.#layout.allocationObject(scope, key, version);
      const outcome = await createOwned(this.#bucket, deadline, objectKey, requestId, false);
      if (outcome === "created") return version;
      return undefined; // another writer took it: pause, read the high-water mark, try above
    });
  }

  /**
   * The highest version this instance knows was allocated for a name: from its cache, else
   * read from the bucket (one request) and remembered. Other instances may have gone higher
   * since, so callers treat it as a place to start looking, never as the answer.
   */
  async highWaterHint(scope: Scope, key: string, deadline: Deadline): Promise<number> {
    const cacheKey = `${scopeKey(scope)}\n${key}`;
    const cached = this.#highWater.get(cacheKey);
    if (cached !== undefined) return cached;
    const known = await this.#allocatedHighWater(scope, key, deadline);
    this.#highWater.observe(cacheKey, known);
    return known;
  }

  forget(): void {
    this.#highWater.clear();
  }

  /** The highest version ever allocated for a name (0 if none), from the bucket. */
  async #allocatedHighWater(scope: Scope, key: string, deadline: Deadline): Promise<number> {
    const prefix = this.#layout.allocationsPrefix(scope, key);
    const page = await this.#bucket.list(deadline, { prefix, maxKeys: 1 });
    const highest = page.objects[0];
    if (!highest) return 0;
    const version = this.#layout.allocatedVersionOf(highest.key, prefix);
    if (version === undefined) throw corruptArtifact(`unexpected object ${highest.key}`);
    return version;
  }
}
