import {
  type ArtifactService,
  type Capabilities,
  type DeleteSelector,
  type PutOptions,
  quotaExceeded,
  type RequestOptions,
  type Scope,
  scopeKey,
  type UploadOptions,
} from "@artifact-kit/core";
import { ForwardingService, slotKey } from "./forwarding.js";

// Quota mutants: an adapter that keeps its own account of each scope's live bytes and
// enforces maxScopeBytes before the store does, as a cache in front of a database would.
// The account is right but for one step, which each mutant gets wrong.

const sizeOf = (live: ReadonlyMap<number, number>, version: number | undefined) =>
  version === undefined ? 0 : (live.get(version) ?? 0);

/** Live versions and their sizes per (scope, name), and which slots each scope holds. */
abstract class ScopeBytesLedger extends ForwardingService {
  readonly #sizes = new Map<string, Map<number, number>>();
  readonly #slots = new Map<string, Set<string>>();
  /** Per scope: bytes a mutant failed to free (or freed twice), counted as if still live. */
  readonly #drift = new Map<string, number>();

  /** Whether a put of `size` is refused with `used` bytes live in its scope. */
  protected abstract refuses(used: number, size: number, bound: number, keyed: boolean): boolean;
  /** The bytes a delete frees, given the slot's live sizes and the versions it removed. */
  protected abstract freed(live: ReadonlyMap<number, number>, removed: readonly number[]): number;

  protected used(scope: string): number {
    let used = this.#drift.get(scope) ?? 0;
    for (const slot of this.#slots.get(scope) ?? []) {
      for (const size of this.#sizes.get(slot)?.values() ?? []) used += size;
    }
    return used;
  }

  override async put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    const bound = this.capabilities().quotas.bounds.maxScopeBytes;
    let key: string;
    try {
      key = scopeKey(scope);
    } catch {
      return this.inner.put(scope, name, data, options); // the adapter refuses a bad scope
    }
    const size = data?.byteLength ?? 0;
    const keyed = options?.idempotencyKey !== undefined;
    if (bound !== undefined && this.refuses(this.used(key), size, bound, keyed)) {
      throw quotaExceeded("maxScopeBytes", bound, "put would exceed maxScopeBytes");
    }
    const meta = await this.inner.put(scope, name, data, options);
    const slot = slotKey(scope, name);
    const live = this.#sizes.get(slot) ?? new Map<number, number>();
    if (!live.has(meta.version)) live.set(meta.version, size); // a replay adds nothing
    this.#sizes.set(slot, live);
    this.#slots.set(key, (this.#slots.get(key) ?? new Set()).add(slot));
    return meta;
  }

  override async delete(
    scope: Scope,
    name: string,
    selector: DeleteSelector,
    options?: RequestOptions,
  ) {
    await this.inner.delete(scope, name, selector, options);
    const live = this.#sizes.get(slotKey(scope, name));
    if (!live) return;
    const versions = [...live.keys()].sort((a, b) => a - b);
    const removed =
      selector === "all"
        ? versions
        : selector === "latest"
          ? versions.slice(-1)
          : versions.filter((version) => version === selector);
    const actual = removed.reduce((sum, version) => sum + sizeOf(live, version), 0);
    const freed = this.freed(live, removed);
    for (const version of removed) live.delete(version);
    const key = scopeKey(scope);
    this.#drift.set(key, (this.#drift.get(key) ?? 0) + actual - freed);
  }
}

/** A delete by number frees the room of the latest live version, not of the one deleted. */
export class DeleteFreesTheLatestsRoom extends ScopeBytesLedger {
  protected refuses(used: number, size: number, bound: number, keyed: boolean) {
    return !keyed && used + size > bound;
  }
  protected freed(live: ReadonlyMap<number, number>, removed: readonly number[]) {
    const latest = Math.max(...live.keys());
    return removed.length === 1 && removed[0] !== latest
      ? sizeOf(live, latest)
      : removed.reduce((sum, version) => sum + sizeOf(live, version), 0);
  }
}

/** Checks the quota before the idempotency key: a retry of a published key fails at a full quota. */
export class RefusesRetriesAtAFullQuota extends ScopeBytesLedger {
  protected refuses(used: number, size: number, bound: number) {
    return used + size > bound;
  }
  protected freed(live: ReadonlyMap<number, number>, removed: readonly number[]) {
    return removed.reduce((sum, version) => sum + sizeOf(live, version), 0);
  }
}

/**
 * Puts are right, but a streamed upload checks the room as its chunks arrive, before its key:
 * a keyed retry of an upload fails at a full quota (the memory adapter's own bug until the
 * retry-at-a-full-quota law found it).
 */
export class UploadRefusesRetriesAtAFullQuota extends ScopeBytesLedger {
  protected refuses(used: number, size: number, bound: number, keyed: boolean) {
    return !keyed && used + size > bound;
  }
  protected freed(live: ReadonlyMap<number, number>, removed: readonly number[]) {
    return removed.reduce((sum, version) => sum + sizeOf(live, version), 0);
  }
  override async openUpload(scope: Scope, name: string, options?: UploadOptions) {
    const sink = await super.openUpload(scope, name, options);
    const bound = this.inner.capabilities().quotas.bounds.maxScopeBytes;
    let gathered = 0;
    return {
      write: async (chunk: Uint8Array) => {
        gathered += chunk.byteLength;
        if (bound !== undefined && this.used(scopeKey(scope)) + gathered > bound) {
          throw quotaExceeded("maxScopeBytes", bound, "upload would exceed maxScopeBytes");
        }
        return sink.write(chunk);
      },
      finish: () => sink.finish(),
      abort: (reason?: unknown) => sink.abort(reason),
    };
  }
}

/**
 * Enforces maxScopeBytes itself (the store behind it has no such bound) by checking the
 * room, then writing without holding it: puts racing for the last room all get in, as a
 * check-then-insert without a lock or a conditional write does.
 */
export class ChecksRoomThenWrites extends ScopeBytesLedger {
  constructor(
    inner: ArtifactService,
    private readonly bound: number | undefined,
  ) {
    super(inner);
  }
  override capabilities(): Capabilities {
    const capabilities = this.inner.capabilities();
    if (this.bound === undefined) return capabilities;
    const bounds = { ...capabilities.quotas.bounds, maxScopeBytes: this.bound };
    return { ...capabilities, quotas: { ...capabilities.quotas, bounds } };
  }
  protected refuses(used: number, size: number, bound: number, keyed: boolean) {
    return !keyed && used + size > bound;
  }
  protected freed(live: ReadonlyMap<number, number>, removed: readonly number[]) {
    return removed.reduce((sum, version) => sum + sizeOf(live, version), 0);
  }
}
