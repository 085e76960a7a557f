import {
  allNames,
  allVersions,
  type Capabilities,
  type DeleteSelector,
  type PutOptions,
  quotaExceeded,
  type RequestOptions,
  type Scope,
} from "@artifact-kit/core";
import type { MemoryArtifactService, MemoryArtifactServiceOptions } from "@artifact-kit/memory";
import { ForwardingService, slotKey } from "./forwarding.js";

// Issue 31's eighth round, the bounds: counts and reports that drift from what is stored (a
// bound left out of the report, a count delete("all") keeps, room a retry takes).

const deepFreeze = <T>(value: T): T => {
  if (value !== null && typeof value === "object") {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
};

/** capabilities() leaves maxScopeArtifacts out of quotas.bounds, and enforces it all the same. */
export class HidesScopeArtifactBound extends ForwardingService {
  #report: Capabilities | undefined;
  override capabilities(): Capabilities {
    if (this.#report === undefined) {
      const report = structuredClone(super.capabilities());
      const { maxScopeArtifacts: _, ...bounds } = report.quotas.bounds;
      this.#report = deepFreeze({ ...report, quotas: { ...report.quotas, bounds } });
    }
    return this.#report;
  }
}

/**
 * delete("all") gives the scope's bytes back but not its count of artifacts: under
 * maxScopeArtifacts the scope fills up early, with versions that no longer exist.
 */
export class DeleteAllKeepsArtifactCount extends ForwardingService {
  readonly #ghosts = new Map<string, number>();
  readonly #bound: number | undefined;
  constructor(inner: MemoryArtifactService, options?: MemoryArtifactServiceOptions) {
    super(inner);
    this.#bound = options?.maxScopeArtifacts;
  }
  override async delete(
    scope: Scope,
    name: string,
    selector: DeleteSelector,
    options?: RequestOptions,
  ) {
    const before = selector === "all" ? await this.#live(scope, name) : 0;
    await super.delete(scope, name, selector, options);
    const key = slotKey(scope, "");
    if (before > 0) this.#ghosts.set(key, (this.#ghosts.get(key) ?? 0) + before);
  }
  async #live(scope: Scope, name: string) {
    try {
      return (await allVersions(this.inner, scope, name)).length;
    } catch {
      return 0;
    }
  }
  override async put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    const ghosts = this.#ghosts.get(slotKey(scope, "")) ?? 0;
    if (this.#bound !== undefined && ghosts > 0 && options?.idempotencyKey === undefined) {
      let live = 0;
      for (const other of await allNames(this.inner, scope)) live += await this.#live(scope, other);
      if (live + ghosts >= this.#bound)
        throw quotaExceeded("maxScopeArtifacts", this.#bound, "the scope holds too many artifacts");
    }
    return super.put(scope, name, data, options);
  }
}

/**
 * The room is reserved before the idempotency key is looked up, and a retry that finds its
 * key bound returns without giving it back: every retry shrinks the scope's maxScopeBytes.
 */
export class RetryChargesRoom extends ForwardingService {
  readonly #bound = new Map<string, number>();
  readonly #charged = new Map<string, number>();
  readonly #room: number | undefined;
  constructor(inner: MemoryArtifactService, options?: MemoryArtifactServiceOptions) {
    super(inner);
    this.#room = options?.maxScopeBytes;
  }
  async #liveBytes(scope: Scope) {
    let bytes = 0;
    for (const name of await allNames(this.inner, scope))
      for (const meta of await allVersions(this.inner, scope, name)) bytes += meta.size;
    return bytes;
  }
  override async put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    const key = options?.idempotencyKey;
    const slot = key === undefined ? undefined : `${slotKey(scope, name)}\n${key}`;
    const scopeKey = slotKey(scope, "");
    const charged = this.#charged.get(scopeKey) ?? 0;
    const retry = slot !== undefined && this.#bound.has(slot);
    if (this.#room !== undefined && charged > 0 && !retry && data instanceof Uint8Array) {
      if ((await this.#liveBytes(scope)) + charged + data.byteLength > this.#room)
        throw quotaExceeded("maxScopeBytes", this.#room, "the scope is full");
    }
    const meta = await super.put(scope, name, data, options);
    if (slot === undefined) return meta;
    if (retry) this.#charged.set(scopeKey, charged + meta.size);
    else this.#bound.set(slot, meta.version);
    return meta;
  }
}
