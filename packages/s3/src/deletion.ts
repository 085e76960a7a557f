import { randomUUID } from "node:crypto";
import { corruptArtifact, type Deadline, notFound, type Scope } from "@artifact-kit/core";
import { allSettledOrFirstFailure, nameKey, type ParsedDelete } from "@artifact-kit/core/adapter";
import type { BucketClient } from "./bucket-client.js";
import { S3_MAX_KEYS } from "./config.js";
import { type LatestLookup, listAll } from "./latest.js";
import type { ObjectLayout } from "./layout.js";
import { createOwned } from "./own-write.js";

/**
 * Deletes published objects; allocations stay, so versions are never reused. Each delete
 * first creates the version's deletion marker, create-only and holding a request id of its
 * own: of concurrent deletes of one version exactly one succeeds (its own write retried after
 * a lost reply still counts as its own), and a retried idempotent put sees the version deleted.
 */
export class VersionRemover {
  readonly #client: BucketClient;
  readonly #layout: ObjectLayout;
  readonly #latest: LatestLookup;

  constructor(client: BucketClient, layout: ObjectLayout, latest: LatestLookup) {
    this.#client = client;
    this.#layout = layout;
    this.#latest = latest;
  }

  async remove(request: ParsedDelete): Promise<void> {
    const { key } = nameKey(request.name);
    // Concurrent deletes of "latest" each take a different version: one that finds its target
    // claimed by another looks again, and answers not_found only when nothing live is left.
    for (;;) {
      const targets = await this.#targets(request.scope, key, request.selector, request.deadline);
      if (targets.length === 0) break;
      // Every request settles before the delete answers, so none lands after a failure.
      const removed = await allSettledOrFirstFailure(
        targets.map((objectKey) =>
          this.#deleteVersion(request.scope, key, objectKey, request.deadline),
        ),
      );
      if (removed.includes(true)) return;
      if (request.selector !== "latest") break;
    }
    throw notFound(`artifact "${request.name}" (${request.selector})`);
  }

  /** Versions to delete; a numbered one is checked first, so no marker names a missing one. */
  async #targets(
    scope: Scope,
    key: string,
    selector: number | "latest" | "all",
    deadline: Deadline,
  ): Promise<string[]> {
    if (selector === "all") {
      const objects = await listAll(
        this.#client,
        deadline,
        { prefix: this.#layout.versionsPrefix(scope, key), maxKeys: S3_MAX_KEYS },
        Number.POSITIVE_INFINITY,
      );
      return objects.map((object) => object.key);
    }
    if (selector === "latest") {
      const objectKey = await this.#latest.latestObject(scope, key, deadline);
      return objectKey === undefined ? [] : [objectKey];
    }
    const objectKey = this.#layout.versionObject(scope, key, selector);
    return (await this.#client.head(deadline, objectKey)) ? [objectKey] : [];
  }

  /**
   * Deletes one published object; false when another delete claimed it first. A marker left
   * by a delete that died before its DeleteObject is finished here, but still counts as theirs.
   */
  async #deleteVersion(
    scope: Scope,
    key: string,
    objectKey: string,
    deadline: Deadline,
  ): Promise<boolean> {
    const version = this.#layout.versionOf(objectKey, this.#layout.versionsPrefix(scope, key));
    if (version === undefined) throw corruptArtifact(`unexpected object ${objectKey}`);
    const marker = this.#layout.deletionMarker(scope, key, version);
    deadline.check();
    const outcome = await createOwned(this.#client, deadline, marker, randomUUID(), true);
    await this.#client.delete(deadline, objectKey);
    return outcome === "created";
  }
}
