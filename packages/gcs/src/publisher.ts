import { randomUUID } from "node:crypto";
import { type ArtifactMeta, type Deadline, unavailable } from "@artifact-kit/core";
import {
  type DataDigest,
  idempotentVersionDeleted,
  nameKey,
  newVersionRecord,
  type ParsedPublication,
  replayIdempotentPut,
} from "@artifact-kit/core/adapter";
import type { VersionAllocator } from "./allocator.js";
import type { BucketClient } from "./bucket-client.js";
import type { IdempotencyKeys, KeyBinding } from "./keys.js";
import type { ObjectLayout } from "./layout.js";
import { type Manifest, metaOf } from "./manifest.js";

import { readPublishedManifest } from "./published.js";
import { REQUEST_ID_KEY } from "./request-id.js";

/** The publishing write of one version: one create-only object for a put, a copy for an upload. */
export type WriteVersion = (
  manifest: Manifest,
  objectName: string,
  deadline: Deadline,
) => Promise<"created" | "exists">;

/**
 * The commit path shared by put and upload: allocate a version, bind the caller's idempotency
 * key to it if there is one, and publish create-only; or answer a retry from its key.
 */
export class VersionPublisher {
  readonly #client: BucketClient;
  readonly #layout: ObjectLayout;
  readonly #allocator: VersionAllocator;
  readonly #keys: IdempotencyKeys;

  constructor(
    client: BucketClient,
    layout: ObjectLayout,
    allocator: VersionAllocator,
    keys: IdempotencyKeys,
  ) {
    this.#client = client;
    this.#layout = layout;
    this.#allocator = allocator;
    this.#keys = keys;
  }

  /**
   * Publishes one new version of what a put or upload carries, through `write`. With an
   * idempotency key, the key is bound to the allocated version before it is published, and a
   * key already bound answers with (or finishes) the version it was bound to.
   */
  async commit(
    request: ParsedPublication,
    digest: DataDigest,
    deadline: Deadline,
    write: WriteVersion,
  ): Promise<ArtifactMeta> {
    const { key } = nameKey(request.name);
    const idempotencyKey = request.idempotencyKey;
    if (idempotencyKey !== undefined) {
      const bound = await this.#keys.read(request.scope, key, idempotencyKey, deadline);
      if (bound) return this.#replay(request, key, digest, bound, deadline, write);
    }
    const requestId = randomUUID();
    const version = await this.#allocator.allocate(request.scope, key, requestId, deadline);
    const manifest = manifestOf(request, digest, version, requestId);
    if (idempotencyKey !== undefined) {
      const binding: KeyBinding = {
        version,
        requestId,
        size: digest.size,
        sha256: digest.sha256,
        mimeType: request.mimeType,
        metadata: request.metadata,
      };
      const holder = await this.#keys.bind(request.scope, key, idempotencyKey, binding, deadline);
      // Another put with this key bound it first: this allocation is burned, theirs answers.
      if (holder.requestId !== requestId) {
        return this.#replay(request, key, digest, holder, deadline, write);
      }
    }
    return this.#publish(manifest, key, deadline, write);
  }

  /** The answer to a put whose idempotency key is bound to `bound`. */
  async #replay(
    request: ParsedPublication,
    key: string,
    digest: DataDigest,
    bound: KeyBinding,
    deadline: Deadline,
    write: WriteVersion,
  ): Promise<ArtifactMeta> {
    // Deletion is judged first (a deleted version is not_found whatever the payload); a
    // different payload is refused before anything is written.
    const judgePayload = () =>
      replayIdempotentPut(bound, {
        ...digest,
        mimeType: request.mimeType,
        metadata: request.metadata,
      });
    const objectName = this.#layout.versionObject(request.scope, key, bound.version);
    const published = await this.#client.stat(deadline, objectName);
    if (published) {
      judgePayload();
      return metaOf(
        await readPublishedManifest(
          this.#client,
          this.#layout,
          request.scope,
          published,
          deadline,
          request.name,
        ),
      );
    }
    if (await this.#keys.wasDeleted(request.scope, key, bound.version, deadline)) {
      idempotentVersionDeleted(bound.version);
    }
    judgePayload();
    // Bound but not published: the first put died or is still on its way. Finish it as that
    // put would (same request id and payload), so whichever write lands first is the one.
    const manifest = manifestOf(request, digest, bound.version, bound.requestId);
    const meta = await this.#publish(manifest, key, deadline, write);
    // A delete that marked the version while this wrote must win: take the write back.
    if (await this.#keys.wasDeleted(request.scope, key, bound.version, deadline)) {
      await this.#client.removeQuietly(objectName);
      idempotentVersionDeleted(bound.version);
    }
    return meta;
  }

  /**
   * The publishing write of `manifest`, create-only. A 412 is success only if the object
   * there is this put's own (a retried write, or the same keyed put finished by a retry); the
   * record returned is then the stored one.
   */
  async #publish(
    manifest: Manifest,
    key: string,
    deadline: Deadline,
    write: WriteVersion,
  ): Promise<ArtifactMeta> {
    const objectName = this.#layout.versionObject(manifest.scope, key, manifest.version);
    deadline.check();
    const outcome = await write(manifest, objectName, deadline);
    if (outcome === "created") return metaOf(manifest);
    const stored = await this.#client.stat(deadline, objectName);
    if (stored?.customMetadata[REQUEST_ID_KEY] !== manifest.requestId) {
      // Allocation objects are create-only and permanent, so only this put may publish here.
      throw unavailable(`version ${manifest.version} was published by another writer`);
    }
    return metaOf(
      await readPublishedManifest(
        this.#client,
        this.#layout,
        manifest.scope,
        stored,
        deadline,
        manifest.name,
      ),
    );
  }
}

/** The manifest of a version about to be published from a put's or upload's content. */
function manifestOf(
  request: ParsedPublication,
  digest: DataDigest,
  version: number,
  requestId: string,
): Manifest {
  return { ...newVersionRecord(request, digest, version), requestId, blocks: digest.blocks };
}
