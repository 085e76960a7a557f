import {
  type Artifact,
  type ArtifactMeta,
  type GetOptions,
  type PutOptions,
  type RequestOptions,
  type Scope,
  TRANSFER_BLOCK_BYTES,
} from "@artifact-kit/core";
import { ForwardingService, slotKey } from "./forwarding.js";

// Mutants that get one field of a record wrong, or hand out state they should copy. Each
// is consistent across every read, so only a check of the field against the bytes the
// caller sent (or of the record's independence) can catch it.

/** Flips the last hex digit of a sha256 for data longer than 20 bytes, on every reply. */
const skewSha = <T extends ArtifactMeta>(meta: T): T => {
  if (meta.size <= 20) return meta;
  const last = meta.sha256.at(-1) === "0" ? "1" : "0";
  return { ...meta, sha256: `${meta.sha256.slice(0, -1)}${last}` };
};

/** Reports a wrong SHA-256 for any data longer than 20 bytes (the example). */
export class ShaWrongAbove20Bytes extends ForwardingService {
  override async put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    return skewSha(await this.inner.put(scope, name, data, options));
  }
  override async get(scope: Scope, name: string, options?: GetOptions) {
    return skewSha(await this.inner.get(scope, name, options));
  }
  override async head(scope: Scope, name: string, options?: GetOptions) {
    return skewSha(await this.inner.head(scope, name, options));
  }
  override async listVersions(...args: Parameters<ForwardingService["listVersions"]>) {
    const page = await this.inner.listVersions(...args);
    return { ...page, items: page.items.map(skewSha) };
  }
  override async list(scope: Scope, options?: RequestOptions) {
    return (await this.inner.list(scope, options)).map(skewSha);
  }
}

/** Stamps createdAt with the time of each read instead of the time of the put. */
export class CreatedAtOnRead extends ForwardingService {
  override async get(scope: Scope, name: string, options?: GetOptions) {
    return { ...(await this.inner.get(scope, name, options)), createdAt: Date.now() + 1 };
  }
  override async head(scope: Scope, name: string, options?: GetOptions) {
    return { ...(await this.inner.head(scope, name, options)), createdAt: Date.now() + 1 };
  }
}

/** Serves the tail of data over one block short: truncation at a block boundary. */
export class TruncatesAtBlockBoundary extends ForwardingService {
  override async get(scope: Scope, name: string, options?: GetOptions): Promise<Artifact> {
    const artifact = await this.inner.get(scope, name, options);
    if (artifact.size <= TRANSFER_BLOCK_BYTES) return artifact;
    const whole = Math.floor(artifact.size / TRANSFER_BLOCK_BYTES) * TRANSFER_BLOCK_BYTES;
    const kept = whole === artifact.size ? whole - TRANSFER_BLOCK_BYTES : whole;
    return { ...artifact, data: artifact.data.subarray(0, kept) };
  }
}

/** Stores empty data as one NUL byte, and says so in size and sha256. */
export class EmptyDataBecomesNul extends ForwardingService {
  override put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    return this.inner.put(
      scope,
      name,
      data instanceof Uint8Array && data.byteLength === 0 ? new Uint8Array(1) : data,
      options,
    );
  }
}

/** Hands out one mutable record per version from head: the caller's changes stick. */
export class SharesHeadRecords extends ForwardingService {
  readonly #records = new Map<string, ArtifactMeta>();
  override async head(scope: Scope, name: string, options?: GetOptions) {
    const meta = await this.inner.head(scope, name, options);
    const key = slotKey(scope, `${name}@${meta.version}`);
    const kept = this.#records.get(key) ?? structuredClone(meta);
    this.#records.set(key, kept);
    return kept;
  }
}

/** Keeps the caller's metadata object by reference and serves it back. */
export class KeepsCallerMetadata extends ForwardingService {
  readonly #metadata = new Map<string, ArtifactMeta["metadata"]>();
  #serve = <T extends ArtifactMeta>(meta: T): T => {
    const kept = this.#metadata.get(slotKey(meta.scope, `${meta.name}@${meta.version}`));
    return kept ? { ...meta, metadata: kept } : meta;
  };
  override async put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    const meta = await this.inner.put(scope, name, data, options);
    if (options?.metadata) {
      this.#metadata.set(slotKey(scope, `${name}@${meta.version}`), options.metadata);
    }
    return meta;
  }
  override async get(scope: Scope, name: string, options?: GetOptions) {
    return this.#serve(await this.inner.get(scope, name, options));
  }
  override async head(scope: Scope, name: string, options?: GetOptions) {
    return this.#serve(await this.inner.head(scope, name, options));
  }
}

/** Copies the caller's buffer only after a turn of the event loop: in-flight writes stick. */
export class CopiesBufferLate extends ForwardingService {
  override async put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    await new Promise((resolve) => setImmediate(resolve));
    return this.inner.put(scope, name, data, options);
  }
}

/** Keys scopes by their ids joined with "/" (kept as an app scope underneath). */
export class JoinsScopeIds extends ForwardingService {
  #joined = (scope: Scope): Scope =>
    typeof scope === "object" && scope !== null && typeof scope.kind === "string"
      ? { kind: "app", app: Object.values(scope).slice(1).join("/") }
      : scope;
  #back = <T extends ArtifactMeta>(scope: Scope, meta: T): T => ({ ...meta, scope });
  override async put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    return this.#back(scope, await this.inner.put(this.#joined(scope), name, data, options));
  }
  override async get(scope: Scope, name: string, options?: GetOptions) {
    return this.#back(scope, await this.inner.get(this.#joined(scope), name, options));
  }
  override async head(scope: Scope, name: string, options?: GetOptions) {
    return this.#back(scope, await this.inner.head(this.#joined(scope), name, options));
  }
  override delete(...[scope, ...rest]: Parameters<ForwardingService["delete"]>) {
    return this.inner.delete(this.#joined(scope), ...rest);
  }
  override async listNames(...[scope, ...rest]: Parameters<ForwardingService["listNames"]>) {
    return { ...(await this.inner.listNames(this.#joined(scope), ...rest)), scope };
  }
  override async listVersions(...[scope, ...rest]: Parameters<ForwardingService["listVersions"]>) {
    const page = await this.inner.listVersions(this.#joined(scope), ...rest);
    return { ...page, items: page.items.map((meta) => this.#back(scope, meta)) };
  }
  override async list(...[scope, ...rest]: Parameters<ForwardingService["list"]>) {
    const records = await this.inner.list(this.#joined(scope), ...rest);
    return records.map((meta) => this.#back(scope, meta));
  }
}

/** Ignores the idempotency key (echoing it in the reply): a retry publishes a second version. */
export class IgnoresIdempotencyKey extends ForwardingService {
  override async put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    const { idempotencyKey, ...rest } = options ?? {};
    const meta = await this.inner.put(scope, name, data, rest);
    return idempotencyKey === undefined ? meta : { ...meta, idempotencyKey };
  }
}
