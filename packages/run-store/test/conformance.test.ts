import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunStore } from "@artifact-kit/core";
import { describeRunStore } from "@artifact-kit/core/conformance";
import { FsArtifactService } from "@artifact-kit/fs";
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

// A real restart: the fs service is closed and a new one opened on the same root, under a
// new store, which must find every run, file, step id and position again.
const fsRoots = new WeakMap<RunStore, string>();
const openServices = new Map<string, FsArtifactService>();
const storeOnDisk = async (
  root: string,
  bounds: RunStore["bounds"] extends () => infer B ? Partial<B> : never,
) => {
  const service = await FsArtifactService.open({ root });
  openServices.set(root, service);
  const store = new ArtifactServiceRunStore(service, { bounds });
  fsRoots.set(store, root);
  return store;
};

describeRunStore("ArtifactServiceRunStore over @artifact-kit/fs, restarted between runs", {
  create: async (bounds) => {
    const root = await mkdtemp(join(tmpdir(), "run-store-fs-"));
    return {
      store: await storeOnDisk(root, bounds),
      cleanup: async () => {
        await openServices.get(root)?.close();
        openServices.delete(root);
        await rm(root, { recursive: true, force: true });
      },
    };
  },
  reopen: async (old) => {
    const root = fsRoots.get(old) as string;
    await openServices.get(root)?.close();
    return storeOnDisk(root, old.bounds());
  },
  numRuns: 40,
});
