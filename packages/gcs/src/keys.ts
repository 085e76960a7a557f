import {
  corruptArtifact,
  type Deadline,
  type Scope,
  validateMetadata,
  validateMimeType,
} from "@artifact-kit/core";
import type { IdempotentPayload } from "@artifact-kit/core/adapter";
import type { BucketClient, StoredObject } from "./bucket-client.js";
import type { ObjectLayout } from "./layout.js";
import { manifestLineText } from "./manifest.js";
import { REQUEST_ID_KEY } from "./request-id.js";

/** On a published object: it was written with an idempotency key (its deletion is marked). */
export const KEYED_FLAG = "artifact-kit-keyed";
/** On an allocation object: the keyed version it stands for was deleted, never to return. */
const DELETED_FLAG = "artifact-kit-deleted";

/** What a key object records: the version its first put allocated, and that put's payload. */
export interface KeyBinding extends IdempotentPayload {
  readonly version: number;
  /** The first put's request id: a retry publishing for it writes as that put would. */
  readonly requestId: string;
}

/**
 * Idempotency keys on GCS. A keyed put binds its key to its freshly allocated version with a
 * create-only key object before it publishes, so concurrent puts with one key agree on one
 * version. A retry that finds the key bound to a version that is not published finishes the
 * first put's publication (same request id, same payload, so whichever write lands first is
 * the one both report), unless that version was deleted: deleting a keyed version marks its
 * permanent allocation object first, and a retry checks the mark before and after it writes.
 */
export class IdempotencyKeys {
  readonly #client: BucketClient;
  readonly #layout: ObjectLayout;

  constructor(client: BucketClient, layout: ObjectLayout) {
    this.#client = client;
    this.#layout = layout;
  }

  async read(
    scope: Scope,
    key: string,
    idempotencyKey: string,
    deadline: Deadline,
  ): Promise<KeyBinding | undefined> {
    const objectName = this.#layout.keyObject(scope, key, idempotencyKey);
    const body = await this.#client.download(deadline, objectName);
    return body === undefined ? undefined : parseBinding(body, objectName);
  }

  /** Binds the key to `binding` unless it is bound already: returns the binding that holds. */
  async bind(
    scope: Scope,
    key: string,
    idempotencyKey: string,
    binding: KeyBinding,
    deadline: Deadline,
  ): Promise<KeyBinding> {
    const objectName = this.#layout.keyObject(scope, key, idempotencyKey);
    const outcome = await this.#client.createOnly(
      deadline,
      {
        name: objectName,
        body: new TextEncoder().encode(JSON.stringify(binding)),
        customMetadata: { [REQUEST_ID_KEY]: binding.requestId },
      },
      false,
    );
    if (outcome === "created") return binding;
    const holder = await this.read(scope, key, idempotencyKey, deadline);
    if (!holder) throw corruptArtifact(`key object ${objectName} vanished`);
    return holder;
  }

  /** Marks a keyed version deleted before its published object goes. */
  async markDeleted(scope: Scope, key: string, version: number, deadline: Deadline) {
    const allocation = this.#layout.allocationObject(scope, key, version);
    await this.#client.addMetadata(deadline, allocation, { [DELETED_FLAG]: "1" });
  }

  async wasDeleted(scope: Scope, key: string, version: number, deadline: Deadline) {
    const allocation = this.#layout.allocationObject(scope, key, version);
    const object = await this.#client.stat(deadline, allocation);
    return object?.customMetadata[DELETED_FLAG] === "1";
  }
}

export function isKeyed(object: StoredObject): boolean {
  return object.customMetadata[KEYED_FLAG] === "1";
}

function parseBinding(body: Uint8Array, objectName: string): KeyBinding {
  let raw: unknown;
  try {
    raw = JSON.parse(manifestLineText(body, objectName));
  } catch (error) {
    throw corruptArtifact(`key object ${objectName} is not JSON`, undefined, error);
  }
  const fields = (typeof raw === "object" && raw !== null ? raw : {}) as Record<string, unknown>;
  const { version, requestId, size, sha256 } = fields;
  if (
    !Number.isSafeInteger(version) ||
    (version as number) < 1 ||
    typeof requestId !== "string" ||
    !Number.isSafeInteger(size) ||
    typeof sha256 !== "string"
  ) {
    throw corruptArtifact(`key object ${objectName} is malformed`);
  }
  try {
    return {
      version: version as number,
      requestId,
      size: size as number,
      sha256,
      mimeType: validateMimeType(fields.mimeType),
      metadata: validateMetadata(fields.metadata),
    };
  } catch (error) {
    throw corruptArtifact(`key object ${objectName} holds an invalid field`, undefined, error);
  }
}
