import type { ArtifactService, RunStoreBoundsOptions } from "@artifact-kit/core";
import type {
  RunStoreConformanceOptions,
  RunStoreSubject,
  ServiceSubject,
} from "@artifact-kit/core/conformance";
import { InMemoryRunStore } from "./memory-store.js";
import { ArtifactServiceRunStore } from "./service-store.js";

/** The run-store kit's subject for the in-memory store: a fresh store per subject. */
export const inMemoryRunStoreSubject: RunStoreConformanceOptions["create"] = async (bounds) => ({
  store: new InMemoryRunStore({ bounds }),
});

/**
 * The run-store kit's subjects for a store over an artifact service, from the service's own
 * conformance subject (e.g. `memorySubjects().create` or `fsSubject`). With the service's
 * reopen, a reopen restarts the service too; without it, reopen is a new store over the same
 * service, which must rebuild every run from what the service holds. The peer is a second store
 * over the service opened alongside the first; the sibling, one under another namespace.
 */
export function runStoreOver(
  createService: () => Promise<ServiceSubject>,
): RunStoreConformanceOptions["create"] {
  return async (bounds: RunStoreBoundsOptions): Promise<RunStoreSubject> => {
    const subject = await createService();
    let service: ArtifactService = subject.service;
    let store: ArtifactServiceRunStore;
    try {
      store = new ArtifactServiceRunStore(service, { bounds });
    } catch (error) {
      // Bad bounds: nothing is returned to clean up, so the service goes now.
      await service.close();
      await subject.cleanup?.();
      throw error;
    }
    return {
      store,
      peer: async () => new ArtifactServiceRunStore(service, { bounds }),
      sibling: async () => new ArtifactServiceRunStore(service, { bounds, namespace: "sibling" }),
      reopen: async () => {
        if (subject.reopen) {
          await service.close();
          service = await subject.reopen();
        }
        return new ArtifactServiceRunStore(service, { bounds });
      },
      cleanup: async () => {
        await service.close();
        await subject.cleanup?.();
      },
    };
  };
}
