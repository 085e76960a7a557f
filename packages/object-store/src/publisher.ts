import { randomUUID } from "node:crypto";
import { type ArtifactMeta, type Deadline, unavailable } from "@artifact-kit/core";
import {
  type DataDigest,
  type IdempotentPayload,
  idempotentVersionDeleted,
  metaOfManifest,
  nameKey,
  newVersionRecord,
  type ParsedPublication,
  replayIdempotentPut,
  type StoredManifest,
} from "@artifact-kit/core/adapter";
import type { VersionAllocator } from "./allocator.js";
import { decodeBinding, encodeBinding, type KeyBinding } from "./binding.js";
import type { CreateOutcome, ObjectBucket } from "./bucket.js";
import type { ObjectLayout } from "./layout.js";
import type { PublishedReader } from "./reader.js";
import { taggedObject } from "./request-ids.js";
import type { Tombstones } from "./tombstones.js";

/**
 * Writes the version object create-only: the commit point (a commit write, never abandoned
 * at the deadline). It leaves nothing visible when it fails.
 */
export type WriteVersion = (manifest: StoredManifest, objectKey: string) => Promise<CreateOutcome>;

/**
 * Turns a put into one new version: allocate, then publish create-only (2 requests). A put
 * with an idempotency key first binds the key to its version with a create-only binding
 * object, so that concurrent and retried puts with that key publish at most one version.
 */
export class Publisher {
  readonly #bucket: ObjectBucket;
  readonly #layout: ObjectLayout;
  readonly #allocator: VersionAllocator;
  readonly #reader: PublishedReader;
  readonly #tombstones: Tombstones;

  constructor(
    bucket: ObjectBucket,
    layout: ObjectLayout,
    allocator: VersionAllocator,
    reader: PublishedReader,
    tombstones: Tombstones,
  ) {
    this.#bucket = bucket;
    this.#layout = layout;
    this.#allocator = allocator;
    this.#reader = reader;
    this.#tombstones = tombstones;
  }

  async publish(
    publication: ParsedPublication,
    digest: DataDigest,
    write: WriteVersion,
  ): Promise<ArtifactMeta> {
    const { scope, name, deadline, idempotencyKey } = publication;
    const { key } = nameKey(name);
    if (idempotencyKey === undefined) {
      const requestId = randomUUID();
      const version = await this.#allocator.allocate(scope, key, requestId, deadline);
      return this.#write(publication, digest, { version, requestId }, write);
    }
    const bindingKey = this.#layout.keyBinding(scope, name, key, idempotencyKey);
    const found = await this.#readBinding(bindingKey, deadline);
    if (found) return this.#resolve(publication, digest, found, write);
    const requestId = randomUUID();
    const version = await this.#allocator.allocate(scope, key, requestId, deadline);
    const binding: KeyBinding = { version, requestId, ...payloadOf(publication, digest) };
    const object = taggedObject(this.#bucket, bindingKey, requestId, encodeBinding(binding));
    const outcome = await this.#bucket.createOnly(deadline, object, { commit: false });
    // Bound by this put (or by its own write, retried after a lost response): no one else
    // can have published or deleted the version yet, so it is written at once.
    if (outcome === "created") return this.#write(publication, digest, binding, write);
    const bound = await this.#readBinding(bindingKey, deadline);
    if (!bound) throw unavailable(`binding ${bindingKey} vanished after it was written`);
    if (bound.requestId === requestId) {
      return this.#write(publication, digest, binding, write);
    }
    // Another put with this key bound it first: this allocation is burned, theirs answers.
    return this.#resolve(publication, digest, bound, write);
  }

  /**
   * The answer for a key bound to `bound.version`: that version's record when it is published
   * (or invalid_argument for another payload), not_found when it was deleted, and otherwise
   * publishes it, in the name of the put that bound it (which may be this one, or one that
   * died before publishing; if it still runs, its own create-only write finds ours).
   */
  async #resolve(
    publication: ParsedPublication,
    digest: DataDigest,
    bound: KeyBinding,
    write: WriteVersion,
  ): Promise<ArtifactMeta> {
    const { scope, name, deadline } = publication;
    const payload = payloadOf(publication, digest);
    const { key } = nameKey(name);
    const objectKey = this.#layout.versionObject(scope, key, bound.version);
    const stored = await this.#reader.readPublished(scope, objectKey, deadline, { name });
    if (stored) return replayIdempotentPut(metaOfManifest(stored.manifest), payload);
    // Deletion is judged before the payload (a deleted version is not_found whatever the
    // retry carries); a different payload is refused before anything is written.
    const deleted = () => this.#tombstones.wasDeleted(scope, key, bound.version, deadline);
    if (await deleted()) idempotentVersionDeleted(bound.version);
    replayIdempotentPut({ scope, name, createdAt: 0, ...bound }, payload);
    const meta = await this.#write(publication, digest, bound, write);
    // A delete that ran between the check above and the write marked the version first.
    if (await deleted()) {
      await this.#bucket.delete(deadline, { key: objectKey });
      idempotentVersionDeleted(bound.version);
    }
    return meta;
  }

  async #write(
    publication: ParsedPublication,
    digest: DataDigest,
    claim: { version: number; requestId: string },
    write: WriteVersion,
  ): Promise<ArtifactMeta> {
    const { scope, name, idempotencyKey, deadline } = publication;
    const manifest: StoredManifest = {
      ...newVersionRecord(publication, digest, claim.version),
      requestId: claim.requestId,
      blocks: digest.blocks,
    };
    const objectKey = this.#layout.versionObject(scope, nameKey(name).key, claim.version);
    deadline.check();
    const outcome = await write(manifest, objectKey);
    if (outcome === "created") return metaOfManifest(manifest);
    // "exists": our own write, retried by the SDK after a lost response, or another put's.
    const stored = await this.#reader.readPublished(scope, objectKey, deadline, { name });
    if (stored?.manifest.requestId === claim.requestId) return metaOfManifest(stored.manifest);
    // Published in this binding's name by a retry, then deleted: the key stays spent.
    if (!stored && idempotencyKey !== undefined) idempotentVersionDeleted(claim.version);
    // Allocation objects are create-only and permanent, so only this put may publish here.
    throw unavailable(`version ${claim.version} was published by another writer`);
  }

  async #readBinding(bindingKey: string, deadline: Deadline): Promise<KeyBinding | undefined> {
    const stored = await this.#bucket.get(deadline, bindingKey);
    return stored === undefined ? undefined : decodeBinding(stored.bytes, bindingKey);
  }
}

function payloadOf(publication: ParsedPublication, digest: DataDigest): IdempotentPayload {
  const { mimeType, metadata } = publication;
  return { size: digest.size, sha256: digest.sha256, mimeType, metadata };
}
