import { randomUUID } from "node:crypto";
import { corruptArtifact, type Deadline, type Scope } from "@artifact-kit/core";
import type { ObjectBucket, ObjectInfo } from "./bucket.js";
import type { ObjectStoreDialect } from "./dialect.js";
import type { ObjectLayout } from "./layout.js";
import { listAll } from "./listing.js";
import { createOwned } from "./request-ids.js";

/** On a published object: it was written with an idempotency key (its deletion is flagged). */
export const KEYED_FLAG = "artifact-kit-keyed";
/** On an allocation object: the keyed version it stands for was deleted, never to return. */
const DELETED_FLAG = "artifact-kit-deleted";

/**
 * How deletions are decided (of concurrent deletes of one version, exactly one deleted it)
 * and remembered (a retried idempotent put finds its version deleted, not absent).
 */
export interface Tombstones {
  /** Deletes one published object of a name key; false when another delete had it first. */
  remove(scope: Scope, key: string, object: ObjectInfo, deadline: Deadline): Promise<boolean>;
  wasDeleted(scope: Scope, key: string, version: number, deadline: Deadline): Promise<boolean>;
  /** Which of `versions` (ascending) were deleted. */
  deletedAmong(
    scope: Scope,
    key: string,
    versions: readonly number[],
    deadline: Deadline,
  ): Promise<Set<number>>;
}

export function tombstonesOf(
  deletions: ObjectStoreDialect["deletions"],
  bucket: ObjectBucket,
  layout: ObjectLayout,
): Tombstones {
  return deletions === "markers"
    ? new DeletionMarkers(bucket, layout)
    : new AllocationFlags(bucket, layout);
}

/**
 * Each delete first writes the version's deletion marker (create-only: the first one stays),
 * from which on a keyed put's retry finds the version deleted once its object is gone; then
 * deletes the object; then creates the version's seal, create-only and holding a request id of
 * its own: the delete that creates it is the one that deleted (S3 cannot say whose delete
 * removed the object), so of concurrent deletes of one version exactly one succeeds (its own
 * write retried after a lost reply still counts as its own). The seal, not the marker, decides:
 * a delete that failed after its marker leaves the version live to every read, and the next
 * delete of it finishes the job and succeeds, as the reads said it would. Markers of buckets
 * written before seals existed only lose their say over who deleted.
 */
class DeletionMarkers implements Tombstones {
  readonly #bucket: ObjectBucket;
  readonly #layout: ObjectLayout;

  constructor(bucket: ObjectBucket, layout: ObjectLayout) {
    this.#bucket = bucket;
    this.#layout = layout;
  }

  async remove(scope: Scope, key: string, object: ObjectInfo, deadline: Deadline) {
    const version = versionOf(this.#layout, scope, key, object);
    const requestId = randomUUID();
    deadline.check();
    // "exists" is as good as "created": another delete's marker, whose delete may have died.
    const marker = this.#layout.deletionMarker(scope, key, version);
    await createOwned(this.#bucket, deadline, marker, requestId, true);
    await this.#bucket.delete(deadline, { key: object.key });
    const seal = this.#layout.deletionSeal(scope, key, version);
    return (await createOwned(this.#bucket, deadline, seal, requestId, true)) === "created";
  }

  async wasDeleted(scope: Scope, key: string, version: number, deadline: Deadline) {
    const marker = this.#layout.deletionMarker(scope, key, version);
    return (await this.#bucket.head(deadline, marker)) !== undefined;
  }

  /** One listing of the markers between the first and last of `versions`. */
  async deletedAmong(scope: Scope, key: string, versions: readonly number[], deadline: Deadline) {
    const first = versions[0];
    const last = versions[versions.length - 1];
    if (first === undefined || last === undefined) return new Set<number>();
    const markers = await listAll(this.#bucket, deadline, {
      prefix: this.#layout.deletionMarkersPrefix(scope, key),
      maxKeys: this.#bucket.maxListKeys,
      startAfter: this.#layout.deletionMarker(scope, key, first - 1),
      endBefore: this.#layout.deletionMarker(scope, key, last + 1),
    });
    const marked = new Set(markers.map((object) => Number(object.key.slice(-16))));
    return new Set(versions.filter((version) => marked.has(version)));
  }
}

/**
 * A keyed version's permanent allocation object is flagged deleted before the published
 * object goes; the object is deleted only in the incarnation that was found, and the delete
 * that removes it is the one that deleted. Needs `addMetadata` and a bucket that tells.
 */
class AllocationFlags implements Tombstones {
  readonly #bucket: ObjectBucket;
  readonly #layout: ObjectLayout;

  constructor(bucket: ObjectBucket, layout: ObjectLayout) {
    if (!bucket.addMetadata || !bucket.tellsDeletes) {
      throw new TypeError(`${bucket.label}: "allocation-flags" needs addMetadata and tellsDeletes`);
    }
    this.#bucket = bucket;
    this.#layout = layout;
  }

  async remove(scope: Scope, key: string, object: ObjectInfo, deadline: Deadline) {
    deadline.check();
    // Unknown metadata (a listing without it) counts as keyed: flagging costs one request.
    if (object.metadata === undefined || object.metadata[KEYED_FLAG] === "1") {
      const version = versionOf(this.#layout, scope, key, object);
      const allocation = this.#layout.allocationObject(scope, key, version);
      await this.#bucket.addMetadata?.(deadline, allocation, { [DELETED_FLAG]: "1" });
    }
    const match = object.match === undefined ? {} : { match: object.match };
    return this.#bucket.delete(deadline, { key: object.key, ...match });
  }

  async wasDeleted(scope: Scope, key: string, version: number, deadline: Deadline) {
    const allocation = this.#layout.allocationObject(scope, key, version);
    const object = await this.#bucket.head(deadline, allocation);
    return object?.metadata?.[DELETED_FLAG] === "1";
  }

  async deletedAmong(scope: Scope, key: string, versions: readonly number[], deadline: Deadline) {
    const flags = await Promise.all(
      versions.map((version) => this.wasDeleted(scope, key, version, deadline)),
    );
    return new Set(versions.filter((_, index) => flags[index]));
  }
}

function versionOf(layout: ObjectLayout, scope: Scope, key: string, object: ObjectInfo): number {
  const version = layout.versionOf(object.key, layout.versionsPrefix(scope, key));
  if (version === undefined) throw corruptArtifact(`unexpected object ${object.key}`);
  return version;
}
