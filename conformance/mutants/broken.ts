import {
  type Artifact,
  type ArtifactMeta,
  type ArtifactService,
  allNames,
  type Capabilities,
  compareUtf8,
  type GetOptions,
  type ListNamesOptions,
  type NamePage,
  type PutOptions,
  type Scope,
} from "@artifact-kit/core";
import { ForwardingService, slotKey } from "./forwarding.js";

// Adapters each broken in exactly one way. Each overrides only what it breaks.

/** Keeps the last put per name and serves it as "latest" even after deletes. */
export class StaleLatest extends ForwardingService {
  readonly #lastPut = new Map<string, Artifact>();
  override async put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    const meta = await this.inner.put(scope, name, data, options);
    this.#lastPut.set(slotKey(scope, name), { ...meta, data: new Uint8Array(data) });
    return meta;
  }
  override async get(scope: Scope, name: string, options?: GetOptions) {
    const real = await this.inner.get(scope, name, options); // errors as the adapter's
    const cached = this.#lastPut.get(slotKey(scope, name));
    const latest = options?.version === undefined || options.version === "latest";
    return latest && cached ? cached : real;
  }
}

/** Stores every scope of an app as the app scope: the same name leaks across scopes. */
export class LeaksAcrossScopes extends ForwardingService {
  #app = (scope: Scope): Scope =>
    typeof scope === "object" && scope ? { kind: "app", app: scope.app } : scope;
  #back = <T extends ArtifactMeta>(scope: Scope, meta: T): T => ({ ...meta, scope });
  override async put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    return this.#back(scope, await this.inner.put(this.#app(scope), name, data, options));
  }
  override async get(scope: Scope, name: string, options?: GetOptions) {
    return this.#back(scope, await this.inner.get(this.#app(scope), name, options));
  }
  override async head(scope: Scope, name: string, options?: GetOptions) {
    return this.#back(scope, await this.inner.head(this.#app(scope), name, options));
  }
  override delete(...[scope, ...rest]: Parameters<ArtifactService["delete"]>) {
    return this.inner.delete(this.#app(scope), ...rest);
  }
  override async listNames(scope: Scope, options?: ListNamesOptions) {
    return { ...(await this.inner.listNames(this.#app(scope), options)), scope };
  }
  override async listVersions(...[scope, ...rest]: Parameters<ArtifactService["listVersions"]>) {
    const page = await this.inner.listVersions(this.#app(scope), ...rest);
    return { ...page, items: page.items.map((meta) => this.#back(scope, meta)) };
  }
  override async list(...[scope, ...rest]: Parameters<ArtifactService["list"]>) {
    return (await this.inner.list(this.#app(scope), ...rest)).map((meta) =>
      this.#back(scope, meta),
    );
  }
}

const DOT_DOT = "%2E%2E";
const hideDotDot = (name: string) =>
  typeof name === "string"
    ? name
        .split("/")
        .map((s) => (s === ".." ? DOT_DOT : s))
        .join("/")
    : name;

/** Accepts a ".." segment by quietly escaping it before validation. */
export class AcceptsDotDot extends ForwardingService {
  override put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    return this.inner.put(scope, hideDotDot(name), data, options);
  }
}

/** Loses the caller's metadata on put. */
export class DropsMetadata extends ForwardingService {
  override put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    const { metadata: _, ...rest } = options ?? {};
    return this.inner.put(scope, name, data, rest);
  }
}

/** Hands out the caller's own buffer, so the caller can change what is "stored". */
export class MutableStoredBytes extends ForwardingService {
  readonly #buffers = new Map<string, Uint8Array>();
  override async put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    const meta = await this.inner.put(scope, name, data, options);
    this.#buffers.set(slotKey(scope, `${name}@${meta.version}`), data);
    return meta;
  }
  override async get(scope: Scope, name: string, options?: GetOptions) {
    const artifact = await this.inner.get(scope, name, options);
    const data = this.#buffers.get(slotKey(scope, `${name}@${artifact.version}`)) ?? artifact.data;
    return { ...artifact, data };
  }
}

/** Ignores the deadline: publishes whatever the signal or timeout says. */
export class PublishesAfterDeadline extends ForwardingService {
  override put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    const { signal: _signal, timeoutMs: _timeoutMs, ...rest } = options ?? {};
    return this.inner.put(scope, name, data, rest);
  }
}

/** Declares every bound one lower than it enforces. */
export class QuotaOffByOne extends ForwardingService {
  override capabilities(): Capabilities {
    const capabilities = this.inner.capabilities();
    const bounds = Object.fromEntries(
      Object.entries(capabilities.quotas.bounds).map(([k, v]) => [k, v - 1]),
    );
    return Object.freeze({
      ...capabilities,
      quotas: Object.freeze({ ...capabilities.quotas, bounds: Object.freeze(bounds) }),
    });
  }
}

/** Reads every name and pages through them itself. */
abstract class RepagingService extends ForwardingService {
  protected allNames(scope: Scope): Promise<string[]> {
    return allNames(this.inner, scope);
  }

  protected page(
    scope: Scope,
    names: string[],
    start: number,
    limit: number,
    nextFrom: number,
  ): NamePage {
    const items = names.slice(start, start + limit);
    const last = items.at(-1);
    return nextFrom < names.length && last !== undefined
      ? { scope, items, nextCursor: last }
      : { scope, items };
  }

  protected limitOf(options: ListNamesOptions | undefined): number {
    return Math.min(
      options?.limit ?? Number.POSITIVE_INFINITY,
      this.inner.capabilities().pagination.maxPageLimit,
    );
  }
}

/** Treats the cursor as inclusive: the last name of a page comes again on the next. */
export class InclusiveCursor extends RepagingService {
  override async listNames(scope: Scope, options?: ListNamesOptions) {
    await this.inner.listNames(scope, options); // validation and errors of the real adapter
    const names = await this.allNames(scope);
    const cursor = options?.cursor;
    const start = cursor === undefined ? 0 : names.findIndex((n) => compareUtf8(n, cursor) >= 0);
    const from = start < 0 ? names.length : start;
    const limit = this.limitOf(options);
    return this.page(scope, names, from, limit, from + limit);
  }
}

/** Points nextCursor one name too far, so the first name of each next page is skipped. */
export class SkipsAtPageBoundary extends RepagingService {
  override async listNames(scope: Scope, options?: ListNamesOptions) {
    const page = await this.inner.listNames(scope, options);
    if (page.nextCursor === undefined) return page;
    const names = await this.allNames(scope);
    const next = names[names.indexOf(page.nextCursor) + 1];
    return next === undefined ? { scope, items: page.items } : { ...page, nextCursor: next };
  }
}

/** Sorts names by JavaScript's default (UTF-16) order instead of UTF-8 byte order. */
export class Utf16Order extends RepagingService {
  override async listNames(scope: Scope, options?: ListNamesOptions) {
    await this.inner.listNames(scope, options);
    const names = (await this.allNames(scope)).sort();
    const cursor = options?.cursor;
    const start = cursor === undefined ? 0 : names.findIndex((n) => n > cursor);
    const from = start < 0 ? names.length : start;
    const limit = this.limitOf(options);
    return this.page(scope, names, from, limit, from + limit);
  }
}
