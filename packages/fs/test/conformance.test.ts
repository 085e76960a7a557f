import type { ArtifactMeta, ArtifactService } from "@artifact-kit/core";
import { describeArtifactService, flipFileByte } from "@artifact-kit/core/conformance";
import { afterAll } from "vitest";
import { FsArtifactService, fsArtifactPaths } from "../src/index.js";
import { tempService } from "./helpers.js";

// Every subject lives in its own directory under os.tmpdir(); cleanup removes it.
const cleanups = new Set<() => Promise<void>>();
afterAll(async () => {
  await Promise.all([...cleanups].map((cleanup) => cleanup()));
});

async function subject(options: Parameters<typeof tempService>[0] = {}) {
  const temp = await tempService(options, "conformance");
  const cleanup = async () => {
    cleanups.delete(cleanup);
    await temp.cleanup();
  };
  cleanups.add(cleanup);
  const { root } = temp;
  return {
    service: temp.service as ArtifactService,
    // A restart: a new instance on the same root, sharing nothing in memory with the old one.
    reopen: async () => FsArtifactService.open({ root, ...options }),
    // Flips one byte of the data file in place, as disk corruption would.
    corrupt: (meta: ArtifactMeta, offset: number) =>
      flipFileByte(fsArtifactPaths(root, meta.scope, meta.name, meta.version).data, offset),
    cleanup,
  };
}

describeArtifactService("fs", {
  create: () => subject(),
  // Small enough for the kit to drive every ceiling, page and list limit to its edge.
  createBounded: () =>
    subject({ maxScanEntries: 12, maxArtifactBytes: 4096, maxPageLimit: 3, legacyListLimit: 4 }),
  numRuns: 100,
});
