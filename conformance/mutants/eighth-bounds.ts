import {
  allNames,
  allVersions,
  type Capabilities,
  type DeleteSelector,
  isArtifactError,
  type PutOptions,
  quotaExceeded,
  type RequestOptions,
  type Scope,
  type UploadOptions,
} from "@artifact-kit/core";
import type { MemoryArtifactService, MemoryArtifactServiceOptions } from "@artifact-kit/memory";
import { ForwardingService, slotKey } from "./forwarding.js";

// Issue 31's eighth round, the bounds: counts and reports that drift from what is stored (a
// bound left out of the report, a count a delete keeps, room a retry, a refused put or an
// aborted upload takes).

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
 * Usage that a wrong path charged and nothing gives back: puts (not keyed ones, whose retries
 * answer before any room is looked at) are refused once what is live plus the phantom would
 * pass the bound, as a store that keeps its own running total would refuse them.
 */
abstract class PhantomUsage extends ForwardingService {
  readonly #phantom = new Map<string, number>();
  /** The bound the phantom counts against, and whether it counts bytes or versions. */
  readonly #limit: { name: "maxScopeBytes" | "maxScopeArtifacts"; value: number | undefined };
  constructor(
    inner: MemoryArtifactService,
    limit: { name: "maxScopeBytes" | "maxScopeArtifacts"; value: number | undefined },
  ) {
    super(inner);
    this.#limit = limit;
  }
  protected charge(scope: Scope, amount: number) {
    const key = slotKey(scope, "");
    this.#phantom.set(key, (this.#phantom.get(key) ?? 0) + amount);
  }
  async #live(scope: Scope) {
    let live = 0;
    for (const name of await allNames(this.inner, scope))
      for (const meta of await allVersions(this.inner, scope, name))
        live += this.#limit.name === "maxScopeBytes" ? meta.size : 1;
    return live;
  }
  override async put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    const phantom = this.#phantom.get(slotKey(scope, "")) ?? 0;
    const { name: bound, value } = this.#limit;
    if (value !== undefined && phantom > 0 && options?.idempotencyKey === undefined) {
      const adds = bound === "maxScopeBytes" ? (data?.byteLength ?? 0) : 1;
      if ((await this.#live(scope)) + phantom + adds > value)
        throw quotaExceeded(bound, value, `the scope is full (${bound})`);
    }
    return super.put(scope, name, data, options);
  }
}

/**
 * A delete of some selectors gives the scope's bytes back but not its count of artifacts:
 * under maxScopeArtifacts the scope fills up early, with versions that no longer exist.
 */
export class DeleteKeepsArtifactCount extends PhantomUsage {
  readonly #keeps: (selector: DeleteSelector) => boolean;
  constructor(
    inner: MemoryArtifactService,
    options: MemoryArtifactServiceOptions | undefined,
    /** The selectors whose deletes forget to give the count back. */
    keeps: (selector: DeleteSelector) => boolean,
  ) {
    super(inner, { name: "maxScopeArtifacts", value: options?.maxScopeArtifacts });
    this.#keeps = keeps;
  }
  override async delete(
    scope: Scope,
    name: string,
    selector: DeleteSelector,
    options?: RequestOptions,
  ) {
    const kept = this.#keeps(selector)
      ? selector === "all"
        ? (await allVersions(this.inner, scope, name).catch(() => [])).length
        : 1
      : 0;
    await super.delete(scope, name, selector, options);
    if (kept > 0) this.charge(scope, kept);
  }
}

/**
 * The room is reserved before the idempotency key is looked up, and a retry that finds its
 * key bound returns without giving it back: every retry shrinks the scope's maxScopeBytes.
 */
export class RetryChargesRoom extends PhantomUsage {
  readonly #bound = new Set<string>();
  constructor(inner: MemoryArtifactService, options?: MemoryArtifactServiceOptions) {
    super(inner, { name: "maxScopeBytes", value: options?.maxScopeBytes });
  }
  override async put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    const key = options?.idempotencyKey;
    const meta = await super.put(scope, name, data, options);
    if (key === undefined) return meta;
    const slot = `${slotKey(scope, name)}\n${key}`;
    if (this.#bound.has(slot)) this.charge(scope, meta.size);
    this.#bound.add(slot);
    return meta;
  }
}

/** A put refused as invalid (after its room was reserved) keeps the room it reserved. */
export class RefusedPutKeepsRoom extends PhantomUsage {
  constructor(inner: MemoryArtifactService, options?: MemoryArtifactServiceOptions) {
    super(inner, { name: "maxScopeBytes", value: options?.maxScopeBytes });
  }
  override async put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    try {
      return await super.put(scope, name, data, options);
    } catch (error) {
      if (isArtifactError(error, "invalid_argument") && data instanceof Uint8Array)
        this.charge(scope, data.byteLength);
      throw error;
    }
  }
}

/** An aborted upload keeps the room of the bytes it had staged. */
export class AbortedUploadKeepsRoom extends PhantomUsage {
  constructor(inner: MemoryArtifactService, options?: MemoryArtifactServiceOptions) {
    super(inner, { name: "maxScopeBytes", value: options?.maxScopeBytes });
  }
  override async openUpload(scope: Scope, name: string, options?: UploadOptions) {
    const sink = await super.openUpload(scope, name, options);
    let staged = 0;
    let finishing = false;
    return {
      write: async (chunk: Uint8Array) => {
        await sink.write(chunk);
        staged += chunk.byteLength;
      },
      finish: () => {
        finishing = true;
        return sink.finish();
      },
      abort: async (reason?: unknown) => {
        await sink.abort(reason);
        if (!finishing) this.charge(scope, staged);
        staged = 0;
      },
    };
  }
}
