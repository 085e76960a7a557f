import {
  type ArtifactService,
  type DeleteSelector,
  isArtifactError,
  type PutOptions,
  type RequestOptions,
  type Scope,
} from "@artifact-kit/core";
import {
  FaultArming,
  type FaultInjection,
  type FaultKind,
  type ServiceSubject,
} from "@artifact-kit/core/conformance";
import { MemoryArtifactService } from "@artifact-kit/memory";
import { ForwardingService } from "./forwarding.js";

// The memory adapter as the backend of an in-process fault injector, so that the kit's fault
// laws have something to run on without a network, and mutants to prove they see the bugs
// faults expose. Each call into the memory store is one "backend request": a cut one never
// reaches the store, a lost reply reaches it and the caller hears unavailable.

/** The memory store behind a fault injector: the next call fails as the armed fault says. */
export class FaultyMemoryBackend extends ForwardingService implements FaultInjection {
  readonly #arming = new FaultArming();

  /** Faults that a call took, over the backend's life. */
  get fired(): number {
    return this.#arming.taken;
  }

  armNext(kind: FaultKind, skip = 0, times = 1): void {
    this.#arming.arm(kind, skip, times);
  }
  disarm(): boolean {
    return this.#arming.disarm();
  }

  #request<T>(call: () => Promise<T>): Promise<T> {
    return this.#arming.send(call);
  }

  override put(...args: Parameters<ArtifactService["put"]>) {
    return this.#request(() => this.inner.put(...args));
  }
  override get(...args: Parameters<ArtifactService["get"]>) {
    return this.#request(() => this.inner.get(...args));
  }
  override head(...args: Parameters<ArtifactService["head"]>) {
    return this.#request(() => this.inner.head(...args));
  }
  override delete(...args: Parameters<ArtifactService["delete"]>) {
    return this.#request(() => this.inner.delete(...args));
  }
  override listNames(...args: Parameters<ArtifactService["listNames"]>) {
    return this.#request(() => this.inner.listNames(...args));
  }
  override listVersions(...args: Parameters<ArtifactService["listVersions"]>) {
    return this.#request(() => this.inner.listVersions(...args));
  }
  override list(...args: Parameters<ArtifactService["list"]>) {
    return this.#request(() => this.inner.list(...args));
  }
}

/**
 * Retries a put once when the backend is unavailable, but without its idempotency key: after
 * a lost reply to a keyed put, the key's version is published and the retry publishes another.
 */
export class RetriesWithoutTheKey extends ForwardingService {
  override async put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    try {
      return await this.inner.put(scope, name, data, options);
    } catch (error) {
      if (!isArtifactError(error, "unavailable")) throw error;
      const { idempotencyKey: _, ...rest } = options ?? {};
      return this.inner.put(scope, name, data, rest);
    }
  }
}

/**
 * Undoes a failed delete by putting the versions it meant to delete back, as new versions: after
 * a lost reply, what was deleted comes back.
 */
export class RestoresAfterFailedDelete extends ForwardingService {
  override async delete(
    scope: Scope,
    name: string,
    selector: DeleteSelector,
    options?: RequestOptions,
  ) {
    const live = (await this.inner.listVersions(scope, name)).items.map((meta) => meta.version);
    const targets = selector === "all" ? live : selector === "latest" ? live.slice(-1) : [selector];
    const kept = await Promise.all(
      targets
        .filter((version) => live.includes(version))
        .map((version) => this.inner.get(scope, name, { version })),
    );
    try {
      await this.inner.delete(scope, name, selector, options);
    } catch (error) {
      if (!isArtifactError(error, "unavailable")) throw error;
      for (const artifact of kept) {
        await this.inner.put(scope, name, artifact.data, { mimeType: artifact.mimeType });
      }
      throw error;
    }
  }
}

export interface FaultMutant {
  name: string;
  /** The adapter over the faulty backend, broken in one way that only faults show. */
  wrap: (backend: ArtifactService) => ArtifactService;
}

export const FAULT_MUTANTS: readonly FaultMutant[] = [
  {
    name: "retries a put that met a fault without its idempotency key",
    wrap: (backend) => new RetriesWithoutTheKey(backend),
  },
  {
    name: "puts a failed delete's versions back as new versions",
    wrap: (backend) => new RestoresAfterFailedDelete(backend),
  },
];

/** A fresh memory store behind a fault injector, with the adapter `wrap` builds over it. */
export function faultyMemorySubject(
  wrap: (backend: ArtifactService) => ArtifactService = (backend) => backend,
): () => Promise<ServiceSubject> {
  return async () => {
    const backend = new FaultyMemoryBackend(new MemoryArtifactService());
    return { service: wrap(backend), faults: backend };
  };
}
