import type {
  ArtifactMeta,
  ArtifactService,
  DeleteSelector,
  GetOptions,
  PutOptions,
  RequestOptions,
  Scope,
} from "@artifact-kit/core";
import type { ServiceSubject } from "@artifact-kit/core/conformance";
import { MemoryArtifactService } from "@artifact-kit/memory";
import { ForwardingService, slotKey } from "./forwarding.js";

// Handles on one shared memory store, so that the kit's two-handle laws have something to
// run on in memory: the subject's service is the store itself, and openAnother gives a
// handle over it (another "process" on the same storage). A mutant is a handle with a
// per-instance cache.

/** A second instance on a shared store: closing it leaves the store (and other handles) open. */
export class SharedStoreHandle extends ForwardingService {
  override async close(): Promise<void> {}
}

/**
 * Caches head(latest) per instance, refreshed by its own puts and deletes only: what another
 * handle writes stays invisible to it until it writes that name itself.
 */
export class LatestCachedPerHandle extends SharedStoreHandle {
  readonly #latest = new Map<string, ArtifactMeta>();
  override async head(scope: Scope, name: string, options?: GetOptions) {
    const latest = options?.version === undefined || options.version === "latest";
    const key = slotKey(scope, name);
    const cached = this.#latest.get(key);
    if (latest && cached) return cached;
    const meta = await this.inner.head(scope, name, options);
    if (latest) this.#latest.set(key, meta);
    return meta;
  }
  override async put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    this.#latest.delete(slotKey(scope, name));
    return this.inner.put(scope, name, data, options);
  }
  override async delete(
    scope: Scope,
    name: string,
    selector: DeleteSelector,
    options?: RequestOptions,
  ) {
    this.#latest.delete(slotKey(scope, name));
    return this.inner.delete(scope, name, selector, options);
  }
}

export interface HandleMutant {
  name: string;
  /** A second handle over `store`, broken in one way. */
  open: (store: ArtifactService) => ArtifactService;
}

export const HANDLE_MUTANTS: readonly HandleMutant[] = [
  {
    name: "caches head(latest) per instance, blind to another handle's writes",
    open: (store) => new LatestCachedPerHandle(store),
  },
];

/** A fresh shared memory store whose openAnother opens handles with `open`. */
export function sharedStoreSubject(
  open: (store: ArtifactService) => ArtifactService = (store) => new SharedStoreHandle(store),
): () => Promise<ServiceSubject> {
  return async () => {
    const store = new MemoryArtifactService();
    return { service: store, openAnother: async () => open(store) };
  };
}
