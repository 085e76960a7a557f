import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunStoreBoundsOptions } from "@artifact-kit/core";
import { describeRunStore } from "@artifact-kit/core/conformance";
import { FsArtifactService } from "@artifact-kit/fs";
import { MemoryArtifactService } from "@artifact-kit/memory";
import { ArtifactServiceRunStore, InMemoryRunStore } from "../src/index.js";

describeRunStore("InMemoryRunStore", {
  numRuns: 200,
  create: async (bounds) => ({ store: new InMemoryRunStore({ bounds }) }),
});

type Bounds = RunStoreBoundsOptions;

// A reopen over the same service: a new store that must rebuild everything from the service.
describeRunStore("ArtifactServiceRunStore over @artifact-kit/memory", {
  create: async (bounds) => {
    const service = new MemoryArtifactService();
    return {
      store: new ArtifactServiceRunStore(service, { bounds }),
      reopen: async () => new ArtifactServiceRunStore(service, { bounds }),
      cleanup: () => service.close(),
    };
  },
  numRuns: 100,
});

// A real restart: the fs service is closed and a new one opened on the same root, under a
// new store, which must find every run, file, step id and position again.
async function fsSubject(bounds: Bounds) {
  const root = await mkdtemp(join(tmpdir(), "run-store-fs-"));
  let service = await FsArtifactService.open({ root });
  return {
    store: new ArtifactServiceRunStore(service, { bounds }),
    reopen: async () => {
      await service.close();
      service = await FsArtifactService.open({ root });
      return new ArtifactServiceRunStore(service, { bounds });
    },
    cleanup: async () => {
      await service.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

describeRunStore("ArtifactServiceRunStore over @artifact-kit/fs, restarted between runs", {
  create: fsSubject,
  numRuns: 40,
});
