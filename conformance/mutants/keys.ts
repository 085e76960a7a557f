import {
  type ArtifactMeta,
  allVersions,
  DEFAULT_MIME_TYPE,
  type DeleteSelector,
  type GetOptions,
  type ListVersionsOptions,
  type PutOptions,
  type RequestOptions,
  type Scope,
  sha256Hex,
} from "@artifact-kit/core";
import { replayIdempotentPut } from "@artifact-kit/core/adapter";
import { ForwardingService, slotKey } from "./forwarding.js";

// Idempotency-key mutants that a sequence of several steps shows: the model's keyed puts and
// retries reach each of them (model-only.test.ts), and the fixed law on deleted keys reaches
// all but the one that drops keys from listings.

/**
 * Forgets a name's idempotency keys once a delete leaves it with no live version, as a store
 * that drops an emptied name's state would: a retry then publishes again, not not_found.
 */
export class ForgetsKeysOfEmptiedNames extends ForwardingService {
  /** How often each name was emptied; after that the inner store sees its keys renamed. */
  readonly #emptied = new Map<string, number>();
  /** Renamed key -> the caller's key, so every reply names the caller's key. */
  readonly #callerKeys = new Map<string, string>();

  override async put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    const key = options?.idempotencyKey;
    if (key === undefined) return this.inner.put(scope, name, data, options);
    const emptied = this.#emptied.get(slotKey(scope, name)) ?? 0;
    const renamed = emptied === 0 ? key : `${key}#${emptied}`;
    this.#callerKeys.set(renamed, key);
    const meta = await this.inner.put(scope, name, data, { ...options, idempotencyKey: renamed });
    return this.#callerKey(meta);
  }
  override async delete(
    scope: Scope,
    name: string,
    selector: DeleteSelector,
    options?: RequestOptions,
  ) {
    await this.inner.delete(scope, name, selector, options);
    if ((await allVersions(this.inner, scope, name)).length === 0) {
      const slot = slotKey(scope, name);
      this.#emptied.set(slot, (this.#emptied.get(slot) ?? 0) + 1);
    }
  }
  override async get(scope: Scope, name: string, options?: GetOptions) {
    return this.#callerKey(await this.inner.get(scope, name, options));
  }
  override async head(scope: Scope, name: string, options?: GetOptions) {
    return this.#callerKey(await this.inner.head(scope, name, options));
  }
  override async listVersions(scope: Scope, name: string, options?: ListVersionsOptions) {
    const page = await this.inner.listVersions(scope, name, options);
    return { ...page, items: page.items.map((meta) => this.#callerKey(meta)) };
  }
  override async list(scope: Scope, options?: RequestOptions) {
    return (await this.inner.list(scope, options)).map((meta) => this.#callerKey(meta));
  }
  #callerKey<T extends ArtifactMeta>(meta: T): T {
    const key = meta.idempotencyKey;
    return key === undefined ? meta : { ...meta, idempotencyKey: this.#callerKeys.get(key) ?? key };
  }
}

/** A copy of `meta` without its idempotencyKey. */
function withoutKey(meta: ArtifactMeta): ArtifactMeta {
  const copy: { -readonly [K in keyof ArtifactMeta]: ArtifactMeta[K] } = { ...meta };
  delete copy.idempotencyKey;
  return copy;
}

/** listVersions and list() leave idempotencyKey out, as a listing index that never stored it. */
export class ListingsDropIdempotencyKey extends ForwardingService {
  override async listVersions(scope: Scope, name: string, options?: ListVersionsOptions) {
    const page = await this.inner.listVersions(scope, name, options);
    return { ...page, items: page.items.map(withoutKey) };
  }
  override async list(scope: Scope, options?: RequestOptions) {
    return (await this.inner.list(scope, options)).map(withoutKey);
  }
}

/**
 * Judges a retry's payload against the key's first put before it looks for the bound version,
 * as a store that compares with its key binding first: a different payload under a key whose
 * version was deleted is invalid_argument instead of not_found.
 */
export class JudgesPayloadBeforeDeletion extends ForwardingService {
  /** slot + key -> the record the key's first put published. */
  readonly #bound = new Map<string, ArtifactMeta>();

  override async put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    const key = options?.idempotencyKey;
    if (key === undefined) return this.inner.put(scope, name, data, options);
    const binding = JSON.stringify([slotKey(scope, name), key]);
    const bound = this.#bound.get(binding);
    if (bound) {
      replayIdempotentPut(bound, {
        size: data.byteLength,
        sha256: sha256Hex(data),
        mimeType: options?.mimeType ?? DEFAULT_MIME_TYPE,
        metadata: options?.metadata ?? {},
      });
    }
    const meta = await this.inner.put(scope, name, data, options);
    if (!bound) this.#bound.set(binding, meta);
    return meta;
  }
}
