import type { RunStore } from "@artifact-kit/core";
import { describeRunStore } from "@artifact-kit/core/conformance";
import { MemoryArtifactService } from "@artifact-kit/memory";
import { ArtifactServiceRunStore, InMemoryRunStore } from "../src/index.js";

describeRunStore("InMemoryRunStore", {
  numRuns: 200,
  create: async (bounds) => ({ store: new InMemoryRunStore({ bounds }) }),
});

// A reopen over the same service: a new store that must rebuild everything from the service.
const services = new WeakMap<RunStore, MemoryArtifactService>();
const storeOver = (
  service: MemoryArtifactService,
  bounds: RunStore["bounds"] extends () => infer B ? Partial<B> : never,
) => {
  const store = new ArtifactServiceRunStore(service, { bounds });
  services.set(store, service);
  return store;
};

describeRunStore("ArtifactServiceRunStore over @artifact-kit/memory", {
  create: async (bounds) => {
    const service = new MemoryArtifactService();
    return { store: storeOver(service, bounds), cleanup: () => service.close() };
  },
  reopen: async (old) => storeOver(services.get(old) as MemoryArtifactService, old.bounds()),
  numRuns: 100,
});
