import { type ArtifactMeta, type ArtifactService, scopeDigest } from "@artifact-kit/core";
import { describeArtifactService, flipFileByte } from "@artifact-kit/core/conformance";
import { fsArtifactPaths, fsPayloadLocation } from "@artifact-kit/fs";
import { describeRouterOverMemory } from "../src/conformance/index.js";
import { createArtifactRuntime, type FsShardOptions, shardRoot } from "../src/index.js";
import { removeRoot, tempRoot } from "./temp.js";

// The fast subjects (memory and scripted workers), shared with the mutation runner.
describeRouterOverMemory();

// Every subject runs the kit's transfer laws too: the router passes the workers' native
// streaming transfer through. Memory stores keep their bytes private, so only the fs
// subject can damage stored data for the corruption law.

/** Flips one byte of a version's payload in its scope's shard, as disk corruption would. */
async function corruptShardData(root: string, meta: ArtifactMeta, offset: number) {
  const shard = shardRoot(root, { scope: meta.scope, id: scopeDigest(meta.scope) });
  const payload = await fsPayloadLocation(
    fsArtifactPaths(shard, meta.scope, meta.name, meta.version),
  );
  return flipFileByte(payload.path, payload.offset + offset);
}

// Durable: exact-scope fs workers; reopen is a restarted router on the same root, and
// openAnother a second router on it while the first stays open.
const durable = (root: string, fs?: FsShardOptions): Promise<ArtifactService> =>
  createArtifactRuntime("durable_local", { root, ...(fs ? { fs } : {}) });

const durableSubject = (fs?: FsShardOptions) => async () => {
  const root = await tempRoot();
  const neighbour = await tempRoot();
  return {
    service: await durable(root, fs),
    reopen: () => durable(root, fs),
    // Another router on the same root, as another process would open it.
    openAnother: () => durable(root, fs),
    // A router on another root of the same disk: another tenant.
    openNeighbour: () => durable(neighbour, fs),
    corrupt: (meta: ArtifactMeta, offset: number) => corruptShardData(root, meta, offset),
    // Each subject's root goes as soon as the kit is done with it, not all at the end.
    cleanup: async () => {
      await removeRoot(root);
      await removeRoot(neighbour);
    },
  };
};

describeArtifactService("sharded (durable_local, fs)", {
  create: durableSubject(),
  // Small item, page and list limits; the fs ceilings stay large, since per shard the
  // scope ceiling bounds one worker, not the router (see the README).
  createBounded: durableSubject({ maxArtifactBytes: 4096, maxPageLimit: 3, legacyListLimit: 4 }),
  numRuns: 25,
});
