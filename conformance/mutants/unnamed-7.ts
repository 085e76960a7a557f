import { createHash } from "node:crypto";
import {
  type ArtifactMeta,
  allNames,
  allScopes,
  allVersions,
  type DeleteSelector,
  type DownloadOptions,
  type GetOptions,
  invalidArgument,
  isArtifactError,
  type ListNamesOptions,
  type ListScopesOptions,
  type ListVersionsOptions,
  type PutOptions,
  quotaExceeded,
  type RequestOptions,
  type Scope,
  type ScopePage,
  type UploadOptions,
  type VersionPage,
} from "@artifact-kit/core";
import { MemoryArtifactService } from "@artifact-kit/memory";
import { ForwardingService, slotKey } from "./forwarding.js";
import { idAtLevel, pageOfIds } from "./unnamed-6.js";

// Issue 31's fifth round, continued (see unnamed-6.ts).

/** listScopes of an app's users (or a user's sessions) matches ids by prefix: "a" takes "ab"'s. */
export class ScopeListingByIdPrefix extends ForwardingService {
  override async listScopes(options?: ListScopesOptions) {
    const page = await super.listScopes(options);
    const kind = options?.kind ?? "app";
    if (kind === "app" || options === undefined) return page;
    const { app, user } = options as { app: string; user?: string };
    const ids: string[] = [];
    if (kind === "user") {
      for (const other of await allScopes(this.inner)) {
        if (!other.app.startsWith(app)) continue;
        for (const scope of await allScopes(this.inner, { kind: "user", app: other.app }))
          ids.push(String(idAtLevel(scope, { kind: "user", app: other.app })));
      }
    } else {
      for (const other of await allScopes(this.inner, { kind: "user", app })) {
        const id = String(idAtLevel(other, { kind: "user", app }));
        if (user === undefined || !id.startsWith(user)) continue;
        for (const scope of await allScopes(this.inner, { kind: "session", app, user: id }))
          ids.push(String(idAtLevel(scope, { kind: "session", app, user: id })));
      }
    }
    return pageOfIds(ids, options, this.capabilities().pagination.maxPageLimit);
  }
}

/** listVersions hands out its cursor as a string of digits (and takes one back). */
export class VersionCursorAsString extends ForwardingService {
  override async listVersions(scope: Scope, name: string, options?: ListVersionsOptions) {
    const cursor: unknown = options?.cursor;
    const given =
      typeof cursor === "string" && /^\d+$/.test(cursor)
        ? { ...options, cursor: Number(cursor) }
        : options;
    const page = await super.listVersions(scope, name, given);
    if (page.nextCursor === undefined) return page;
    return { ...page, nextCursor: String(page.nextCursor) } as unknown as VersionPage;
  }
}

/** Deleting a version this service already deleted succeeds again (a "idempotent" delete). */
export class RepeatedDeleteSucceeds extends ForwardingService {
  readonly #deleted = new Set<string>();
  override async delete(
    scope: Scope,
    name: string,
    selector: DeleteSelector,
    options?: RequestOptions,
  ) {
    const key = `${slotKey(scope, name)}\n${String(selector)}`;
    if (typeof selector === "number" && this.#deleted.has(key)) return;
    await super.delete(scope, name, selector, options);
    if (typeof selector === "number") this.#deleted.add(key);
  }
}

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** The type of data put without a mimeType is sniffed: JSON text, PNG and PDF get theirs. */
export class SniffsMimeType extends ForwardingService {
  static #sniff(data: Uint8Array): string | undefined {
    if (PNG.every((byte, i) => data[i] === byte)) return "image/png";
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(data);
    } catch {
      return undefined;
    }
    if (text.startsWith("%PDF-")) return "application/pdf";
    if (!/^\s*[{[]/.test(text)) return undefined;
    try {
      JSON.parse(text);
      return "application/json";
    } catch {
      return undefined;
    }
  }
  override put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    if (options?.mimeType !== undefined || !(data instanceof Uint8Array))
      return super.put(scope, name, data, options);
    const mimeType = SniffsMimeType.#sniff(data);
    return super.put(
      scope,
      name,
      data,
      mimeType === undefined ? options : { ...options, mimeType },
    );
  }
}

/** null values in metadata objects are dropped on the way in (an "omit nulls" serializer). */
export class MetadataDropsNullValues extends ForwardingService {
  static #drop(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((item) => MetadataDropsNullValues.#drop(item));
    if (value === null || typeof value !== "object") return value;
    if (Object.getPrototypeOf(value) !== Object.prototype) return value;
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (item !== null)
        Object.defineProperty(copy, key, {
          value: MetadataDropsNullValues.#drop(item),
          enumerable: true,
          writable: true,
          configurable: true,
        });
    }
    return copy;
  }
  static #options<T extends PutOptions | UploadOptions>(options: T | undefined): T | undefined {
    if (options?.metadata === undefined) return options;
    return { ...options, metadata: MetadataDropsNullValues.#drop(options.metadata) };
  }
  override put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    return super.put(scope, name, data, MetadataDropsNullValues.#options(options));
  }
  override openUpload(scope: Scope, name: string, options?: UploadOptions) {
    return super.openUpload(scope, name, MetadataDropsNullValues.#options(options));
  }
}

/** A user's page of sessions ignores `limit`: it is always a page of maxPageLimit. */
export class SessionPagesIgnoreLimit extends ForwardingService {
  override async listScopes(options?: ListScopesOptions) {
    const page = await super.listScopes(options);
    if (options?.kind !== "session" || options.limit === undefined) return page;
    const { limit: _, ...rest } = options;
    return super.listScopes(rest);
  }
}

/** After close(), arguments are still validated first: a bad call is invalid_argument, not closed. */
export class ValidatesBeforeClosed extends ForwardingService {
  #closed = false;
  readonly #probe = new MemoryArtifactService();
  async #checked<T>(probe: () => Promise<unknown>, real: () => Promise<T>): Promise<T> {
    if (this.#closed) {
      const refused = await probe().then(
        () => undefined,
        (error: unknown) => (isArtifactError(error, "invalid_argument") ? error : undefined),
      );
      if (refused !== undefined) throw refused;
    }
    return real();
  }
  override put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    return this.#checked(
      () => this.#probe.put(scope, name, data, options),
      () => super.put(scope, name, data, options),
    );
  }
  override get(scope: Scope, name: string, options?: GetOptions) {
    return this.#checked(
      () => this.#probe.get(scope, name, options),
      () => super.get(scope, name, options),
    );
  }
  override head(scope: Scope, name: string, options?: GetOptions) {
    return this.#checked(
      () => this.#probe.head(scope, name, options),
      () => super.head(scope, name, options),
    );
  }
  override delete(scope: Scope, name: string, selector: DeleteSelector, options?: RequestOptions) {
    return this.#checked(
      () => this.#probe.delete(scope, name, selector, options),
      () => super.delete(scope, name, selector, options),
    );
  }
  override listNames(scope: Scope, options?: ListNamesOptions) {
    return this.#checked(
      () => this.#probe.listNames(scope, options),
      () => super.listNames(scope, options),
    );
  }
  override listVersions(scope: Scope, name: string, options?: ListVersionsOptions) {
    return this.#checked(
      () => this.#probe.listVersions(scope, name, options),
      () => super.listVersions(scope, name, options),
    );
  }
  override list(scope: Scope, options?: RequestOptions) {
    return this.#checked(
      () => this.#probe.list(scope, options),
      () => super.list(scope, options),
    );
  }
  override listScopes(options?: ListScopesOptions) {
    return this.#checked(
      () => this.#probe.listScopes(options),
      () => super.listScopes(options),
    );
  }
  override async close() {
    await super.close();
    this.#closed = true;
  }
}

/** get(latest) is a head then a get of that number: a delete between them is a not_found. */
export class LatestReadInTwoSteps extends ForwardingService {
  override async get(scope: Scope, name: string, options?: GetOptions) {
    if (options?.version !== undefined && options.version !== "latest")
      return super.get(scope, name, options);
    const head = await super.head(scope, name, options);
    return super.get(scope, name, { ...options, version: head.version });
  }
}

/** listScopes answers from a cache of mutable pages: a caller's edit shows in the next answer. */
export class ScopePageShared extends ForwardingService {
  readonly #pages = new Map<string, ScopePage>();
  #generation = 0;
  async #write<T>(run: () => Promise<T>): Promise<T> {
    this.#generation++;
    this.#pages.clear();
    try {
      return await run();
    } finally {
      this.#generation++;
      this.#pages.clear();
    }
  }
  override put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    return this.#write(() => super.put(scope, name, data, options));
  }
  override delete(scope: Scope, name: string, selector: DeleteSelector, options?: RequestOptions) {
    return this.#write(() => super.delete(scope, name, selector, options));
  }
  override async openUpload(scope: Scope, name: string, options?: UploadOptions) {
    const upload = await super.openUpload(scope, name, options);
    return {
      write: (chunk: Uint8Array) => upload.write(chunk),
      finish: () => this.#write(() => upload.finish()),
      abort: (reason?: unknown) => upload.abort(reason),
    };
  }
  override async listScopes(options?: ListScopesOptions) {
    const { signal: _s, timeoutMs: _t, ...query } = options ?? {};
    const generation = this.#generation;
    const page = await super.listScopes(options);
    const key = JSON.stringify(query);
    const cached = this.#pages.get(key);
    if (cached !== undefined) return cached;
    const mutable: ScopePage = { ...page, items: page.items.map((scope) => ({ ...scope })) };
    if (generation === this.#generation) this.#pages.set(key, mutable);
    return mutable;
  }
}

const sha256 = (chunks: readonly Uint8Array[]) => {
  const hash = createHash("sha256");
  for (const chunk of chunks) hash.update(chunk);
  return hash.digest("hex");
};

/** A keyed upload retried is compared by its bytes alone: other metadata or mimeType replays. */
export class UploadRetryIgnoresMetadata extends ForwardingService {
  override async openUpload(scope: Scope, name: string, options?: UploadOptions) {
    const upload = await super.openUpload(scope, name, options);
    const key = options?.idempotencyKey;
    if (typeof key !== "string") return upload;
    const chunks: Uint8Array[] = [];
    return {
      write: async (chunk: Uint8Array) => {
        await upload.write(chunk);
        chunks.push(chunk.slice());
      },
      finish: async () => {
        try {
          return await upload.finish();
        } catch (error) {
          if (!isArtifactError(error, "invalid_argument")) throw error;
          const bound = (await allVersions(this.inner, scope, name)).find(
            (meta) => meta.idempotencyKey === key,
          );
          if (bound === undefined || bound.sha256 !== sha256(chunks)) throw error;
          return bound;
        }
      },
      abort: (reason?: unknown) => upload.abort(reason),
    };
  }
}

/** Runs every operation that takes options through `around(options, call)`. */
abstract class AroundEveryCall extends ForwardingService {
  protected abstract around<T>(options: unknown, run: () => Promise<T>): Promise<T>;
  override put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    return this.around(options, () => super.put(scope, name, data, options));
  }
  override get(scope: Scope, name: string, options?: GetOptions) {
    return this.around(options, () => super.get(scope, name, options));
  }
  override head(scope: Scope, name: string, options?: GetOptions) {
    return this.around(options, () => super.head(scope, name, options));
  }
  override delete(scope: Scope, name: string, selector: DeleteSelector, options?: RequestOptions) {
    return this.around(options, () => super.delete(scope, name, selector, options));
  }
  override listNames(scope: Scope, options?: ListNamesOptions) {
    return this.around(options, () => super.listNames(scope, options));
  }
  override listVersions(scope: Scope, name: string, options?: ListVersionsOptions) {
    return this.around(options, () => super.listVersions(scope, name, options));
  }
  override list(scope: Scope, options?: RequestOptions) {
    return this.around(options, () => super.list(scope, options));
  }
  override listScopes(options?: ListScopesOptions) {
    return this.around(options, () => super.listScopes(options));
  }
  override openUpload(scope: Scope, name: string, options?: UploadOptions) {
    return this.around(options, () => super.openUpload(scope, name, options));
  }
  override openDownload(scope: Scope, name: string, options?: DownloadOptions) {
    return this.around(options, () => super.openDownload(scope, name, options));
  }
}

/** A caller's own abort reason (anything but the DOMException abort() makes) is thrown as is. */
export class RethrowsCustomAbortReason extends AroundEveryCall {
  protected async around<T>(options: unknown, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      const signal = (options as RequestOptions | undefined)?.signal;
      const reason: unknown = signal?.reason;
      if (isArtifactError(error, "aborted") && signal?.aborted && !(reason instanceof DOMException))
        throw reason;
      throw error;
    }
  }
}

const shortSha = <T extends ArtifactMeta>(meta: T): T => ({
  ...meta,
  sha256: meta.sha256.replace(/^0+/, ""),
});

/** sha256 printed from a number: a digest starting with 0 loses its leading zeros. */
export class ShaDropsLeadingZeros extends ForwardingService {
  override async put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    return shortSha(await super.put(scope, name, data, options));
  }
  override async get(scope: Scope, name: string, options?: GetOptions) {
    return shortSha(await super.get(scope, name, options));
  }
  override async head(scope: Scope, name: string, options?: GetOptions) {
    return shortSha(await super.head(scope, name, options));
  }
  override async listVersions(scope: Scope, name: string, options?: ListVersionsOptions) {
    const page = await super.listVersions(scope, name, options);
    return { ...page, items: page.items.map(shortSha) };
  }
  override async list(scope: Scope, options?: RequestOptions) {
    return (await super.list(scope, options)).map(shortSha);
  }
}

/** An upload reserves its declared maxBytes against maxScopeBytes at open, not the bytes it sends. */
export class UploadReservesMaxBytes extends ForwardingService {
  override async openUpload(scope: Scope, name: string, options?: UploadOptions) {
    const upload = await super.openUpload(scope, name, options);
    const bound = this.capabilities().quotas.bounds.maxScopeBytes;
    const reserved = options?.maxBytes;
    if (bound === undefined || typeof reserved !== "number") return upload;
    let used = 0;
    for (const other of await allNames(this.inner, scope))
      for (const meta of await allVersions(this.inner, scope, other)) used += meta.size;
    if (used + reserved <= bound) return upload;
    await upload.abort();
    throw quotaExceeded("maxScopeBytes", bound, "the upload's maxBytes does not fit the scope");
  }
}

/** A keyed put of 0 bytes records no key ("nothing to deduplicate"): its retry publishes again. */
export class EmptyPutsBindNoKey extends ForwardingService {
  override async put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    const key = options?.idempotencyKey;
    if (typeof key !== "string" || !(data instanceof Uint8Array) || data.byteLength > 0)
      return super.put(scope, name, data, options);
    const { idempotencyKey: _, ...rest } = options ?? {};
    return { ...(await super.put(scope, name, data, rest)), idempotencyKey: key };
  }
}

/** An option given as `undefined` (a spread of an optional field) is refused, not left out. */
export class RejectsUndefinedOptionValues extends AroundEveryCall {
  protected async around<T>(options: unknown, run: () => Promise<T>): Promise<T> {
    if (options !== null && typeof options === "object") {
      for (const [key, value] of Object.entries(options))
        if (value === undefined) throw invalidArgument(key, "must not be undefined");
    }
    return run();
  }
}
