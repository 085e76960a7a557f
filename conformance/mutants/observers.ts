import {
  type ArtifactMeta,
  allVersions,
  type DeleteSelector,
  type ListNamesOptions,
  type ListVersionsOptions,
  type RequestOptions,
  type Scope,
} from "@artifact-kit/core";
import { ForwardingService, slotKey } from "./forwarding.js";

// Mutants whose bug shows only to an observer running while a write is in flight: each step
// of the write is right, and the state after it is right, but between two steps a reader
// sees a state that no order of the operations explains.

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A delete in two steps: it first drops the versions from the listings, then (a turn of the
 * event loop later) removes them. In between, listVersions says a version is gone while get
 * still returns it: a half-state that only a concurrent reader sees.
 */
export class DeleteHidesBeforeRemoving extends ForwardingService {
  readonly #hidden = new Set<string>();
  readonly #key = (scope: Scope, name: string, version: number) =>
    `${slotKey(scope, name)}#${version}`;
  #shown = (meta: ArtifactMeta) =>
    !this.#hidden.has(this.#key(meta.scope, meta.name, meta.version));

  override async delete(
    scope: Scope,
    name: string,
    selector: DeleteSelector,
    options?: RequestOptions,
  ) {
    const live = (await allVersions(this.inner, scope, name)).map((meta) => meta.version);
    const targets = selector === "all" ? live : selector === "latest" ? live.slice(-1) : [selector];
    const keys = targets.filter((v) => live.includes(v)).map((v) => this.#key(scope, name, v));
    for (const key of keys) this.#hidden.add(key);
    try {
      await nextTurn();
      await this.inner.delete(scope, name, selector, options);
    } finally {
      for (const key of keys) this.#hidden.delete(key);
    }
  }
  override async listVersions(scope: Scope, name: string, options?: ListVersionsOptions) {
    const page = await this.inner.listVersions(scope, name, options);
    return { ...page, items: page.items.filter(this.#shown) };
  }
  override async listNames(scope: Scope, options?: ListNamesOptions) {
    const page = await this.inner.listNames(scope, options);
    const shown: string[] = [];
    for (const name of page.items) {
      const versions = await allVersions(this.inner, scope, name);
      if (versions.some(this.#shown)) shown.push(name);
    }
    return { ...page, items: shown };
  }
  override async list(scope: Scope, options?: RequestOptions) {
    return (await this.inner.list(scope, options)).filter(this.#shown);
  }
}
