import {
  allNames,
  type GetOptions,
  invalidArgument,
  type JsonObject,
  type JsonValue,
  type ListNamesOptions,
  type PutOptions,
  type Scope,
  type UploadOptions,
  validateMetadata,
} from "@artifact-kit/core";
import { ForwardingService, slotKey } from "./forwarding.js";

// Mutants of the classes the scale and value-domain laws close: each works on small, ASCII,
// NFC inputs and breaks only past a thousand names, on a special key or character, or on an
// identifier that differs from another only by its normalization.

/** Drops the 257th name of a scope (position 256 in UTF-8 order) from every listNames page. */
export class DropsThe257thName extends ForwardingService {
  override async listNames(scope: Scope, options?: ListNamesOptions) {
    const page = await this.inner.listNames(scope, options);
    const all = await allNames(this.inner, scope);
    if (all.length <= 256) return page;
    const lost = all[256];
    return { ...page, items: page.items.filter((name) => name !== lost) };
  }
}

/** Copies metadata with `copy[key] = value`: a "__proto__" key is lost (or sets the prototype). */
function assignCopy(value: JsonValue): JsonValue {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map(assignCopy);
  const copy: Record<string, JsonValue> = {};
  for (const [key, inner] of Object.entries(value)) copy[key] = assignCopy(inner);
  return copy;
}

/** `options` with its metadata rewritten by `rewrite`; bad metadata stays for the adapter to refuse. */
function rewriteMetadata(
  options: PutOptions | undefined,
  rewrite: (value: JsonValue) => JsonValue,
) {
  try {
    if (options?.metadata === undefined) return options;
    return { ...options, metadata: rewrite(validateMetadata(options.metadata)) as JsonObject };
  } catch {
    return options;
  }
}

export class LosesProtoKeys extends ForwardingService {
  override put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    return this.inner.put(scope, name, data, rewriteMetadata(options, assignCopy));
  }
}

/** Strips NUL from metadata strings and keys, as a JSON column that refuses \u0000 would. */
function withoutNul(value: JsonValue): JsonValue {
  if (typeof value === "string") return value.replaceAll("\0", "");
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map(withoutNul);
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [key.replaceAll("\0", ""), withoutNul(inner)]),
  );
}

export class DropsNulInMetadata extends ForwardingService {
  override put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    return this.inner.put(scope, name, data, rewriteMetadata(options, withoutNul));
  }
}

/** Counts a name's bytes as CESU-8 (an astral character as 6): valid 1,024-byte names fail. */
export class CountsNamesAsCesu8 extends ForwardingService {
  override async put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    if (typeof name === "string") {
      const astral = [...name].filter((char) => char.length === 2).length;
      if (Buffer.byteLength(name) + 2 * astral > 1024) {
        throw invalidArgument("name", "is longer than 1024 bytes");
      }
    }
    return this.inner.put(scope, name, data, options);
  }
}

/** Keys every scope by its ids in NFC: ids that differ only by normalization share a scope. */
export class NormalizesScopeIds extends ForwardingService {
  #nfc = (scope: Scope): Scope => {
    if (typeof scope !== "object" || scope === null) return scope;
    const normal = (id: unknown) => (typeof id === "string" ? id.normalize("NFC") : id);
    const out: Record<string, unknown> = { ...scope };
    for (const field of ["app", "user", "session"]) {
      if (field in out) out[field] = normal(out[field]);
    }
    return out as unknown as Scope;
  };
  #back = <T extends { scope: Scope }>(scope: Scope, record: T): T => ({ ...record, scope });
  override async put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    return this.#back(scope, await this.inner.put(this.#nfc(scope), name, data, options));
  }
  override async get(scope: Scope, name: string, options?: GetOptions) {
    return this.#back(scope, await this.inner.get(this.#nfc(scope), name, options));
  }
  override async head(scope: Scope, name: string, options?: GetOptions) {
    return this.#back(scope, await this.inner.head(this.#nfc(scope), name, options));
  }
  override delete(...[scope, ...rest]: Parameters<ForwardingService["delete"]>) {
    return this.inner.delete(this.#nfc(scope), ...rest);
  }
  override async listNames(scope: Scope, options?: ListNamesOptions) {
    return { ...(await this.inner.listNames(this.#nfc(scope), options)), scope };
  }
  override async listVersions(...[scope, ...rest]: Parameters<ForwardingService["listVersions"]>) {
    const page = await this.inner.listVersions(this.#nfc(scope), ...rest);
    return { ...page, items: page.items.map((meta) => this.#back(scope, meta)) };
  }
  override async list(...[scope, ...rest]: Parameters<ForwardingService["list"]>) {
    return (await this.inner.list(this.#nfc(scope), ...rest)).map((m) => this.#back(scope, m));
  }
}

/**
 * A streamed upload looks its key up only in what it published itself this session, and a
 * retry that it does not recognize (the second one onwards) publishes again under the key.
 */
export class UploadRetryPublishesTwice extends ForwardingService {
  readonly #uploaded = new Set<string>();
  override async openUpload(scope: Scope, name: string, options?: UploadOptions) {
    const key = options?.idempotencyKey;
    if (key === undefined) return super.openUpload(scope, name, options);
    const slot = `${slotKey(scope, name)}\0${key}`;
    if (!this.#uploaded.has(slot)) {
      this.#uploaded.add(slot);
      return super.openUpload(scope, name, options);
    }
    const { idempotencyKey: _dropped, ...rest } = options ?? {};
    const sink = await super.openUpload(scope, name, rest);
    return {
      write: (chunk: Uint8Array) => sink.write(chunk),
      abort: (reason?: unknown) => sink.abort(reason),
      finish: async () => ({ ...(await sink.finish()), idempotencyKey: key }),
    } as typeof sink;
  }
}
