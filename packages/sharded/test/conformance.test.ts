import { type ArtifactMeta, type ArtifactService, scopeDigest } from "@artifact-kit/core";
import { describeArtifactService, flipFileByte } from "@artifact-kit/core/conformance";
import { fsArtifactPaths } from "@artifact-kit/fs";
import type { MemoryArtifactServiceOptions } from "@artifact-kit/memory";
import {
  createArtifactRuntime,
  type FsShardOptions,
  memoryShards,
  ShardedArtifactService,
  shardRoot,
} from "../src/index.js";
import { tempRoot } from "./temp.js";

const SMALL_PAGES = { maxPageLimit: 25, legacyListLimit: 30 };

// Shared: one memory worker, so its quotas are global and the kit drives every one of them.
describeArtifactService("sharded (shared, memory)", {
  create: async () => ({ service: shared() }),
  createBounded: async () => ({
    service: shared({
      ...SMALL_PAGES,
      maxArtifactBytes: 4096,
      maxScopeBytes: 16_384,
      maxTotalBytes: 32_768,
      maxScopeArtifacts: 40,
      maxTotalArtifacts: 100,
    }),
  }),
  numRuns: 50,
});

// Exact scope: every worker holds one scope, so the memory "total" quotas bound that scope
// alone (capabilities say per_shard). They are left large here: the kit's total-quota
// checks assume one budget across scopes, which per-shard quotas by design are not.
describeArtifactService("sharded (exact_scope, memory)", {
  create: async () => ({ service: exact() }),
  createBounded: async () => ({
    service: exact({
      ...SMALL_PAGES,
      maxArtifactBytes: 4096,
      maxScopeBytes: 16_384,
      maxScopeArtifacts: 40,
    }),
  }),
  numRuns: 50,
});

function shared(options?: MemoryArtifactServiceOptions) {
  return new ShardedArtifactService(memoryShards(options), { strategy: "shared" });
}

function exact(options?: MemoryArtifactServiceOptions) {
  return new ShardedArtifactService(memoryShards(options), { strategy: "exact_scope" });
}

// Every subject runs the kit's transfer laws too: the router passes the workers' native
// streaming transfer through. Memory stores keep their bytes private, so only the fs
// subject can damage stored data for the corruption law.

/** Flips one byte of a version's data file in its scope's shard, as disk corruption would. */
function corruptShardData(root: string, meta: ArtifactMeta, offset: number) {
  const shard = shardRoot(root, { scope: meta.scope, id: scopeDigest(meta.scope) });
  return flipFileByte(fsArtifactPaths(shard, meta.scope, meta.name, meta.version).data, offset);
}

// Durable: exact-scope fs workers; reopen is a restarted router on the same root.
const rootOf = new WeakMap<ArtifactService, string>();
async function durable(root: string, fs?: FsShardOptions): Promise<ArtifactService> {
  const service = await createArtifactRuntime("durable_local", { root, ...(fs ? { fs } : {}) });
  rootOf.set(service, root);
  return service;
}

describeArtifactService("sharded (durable_local, fs)", {
  create: async () => ({ service: await durable(await tempRoot()) }),
  reopen: (old) => durable(rootOf.get(old) as string),
  // Small item, page and list limits; the fs ceilings stay large, since per shard the
  // scope ceiling bounds one worker, not the router (see the README).
  createBounded: async () => ({
    service: await durable(await tempRoot(), {
      maxArtifactBytes: 4096,
      maxPageLimit: 3,
      legacyListLimit: 4,
    }),
  }),
  corruptData: (service, meta, offset) =>
    corruptShardData(rootOf.get(service) as string, meta, offset),
  numRuns: 25,
});
