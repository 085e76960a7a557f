import { describeArtifactService } from "@artifact-kit/core/conformance";
import type { MemoryArtifactServiceOptions } from "@artifact-kit/memory";
import { memoryShards, ShardedArtifactService } from "@artifact-kit/sharded";
import { describeShardedRouter, ScriptedShards } from "@artifact-kit/sharded/conformance";

// Mutation target "sharded": the router kit (admission, reclamation, timers, failure, close,
// transfer holds, scale, two routers on one backend) and the artifact-service kit over the
// router with memory workers, shared and exact-scope (as packages/sharded/test runs them,
// without the slower fs subject).

describeShardedRouter("ShardedArtifactService", {
  create: (factory, options) => new ShardedArtifactService(factory, options),
});

const SMALL_PAGES = { maxPageLimit: 25, legacyListLimit: 30 };
const router = (strategy: "shared" | "exact_scope", options?: MemoryArtifactServiceOptions) =>
  new ShardedArtifactService(memoryShards(options), { strategy });

describeArtifactService("sharded (shared, memory)", {
  create: async () => ({ service: router("shared") }),
  createBounded: async () => ({
    service: router("shared", {
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

describeArtifactService("sharded (exact_scope, memory)", {
  create: async () => ({ service: router("exact_scope") }),
  createBounded: async () => ({
    service: router("exact_scope", {
      ...SMALL_PAGES,
      maxArtifactBytes: 4096,
      maxScopeBytes: 16_384,
      maxScopeArtifacts: 40,
    }),
  }),
  numRuns: 50,
});

// Workers not built on core's adapter template (as a third party's may be): the router calls
// their public methods, so every option must survive the trip. The workers' stores outlive
// them, so a restarted router, or a second one beside the first, finds every scope's data.
describeArtifactService("sharded (exact_scope, workers through their public methods)", {
  create: async () => {
    const shards = new ScriptedShards("durable", "native");
    const open = async () => new ShardedArtifactService(shards);
    return { service: await open(), reopen: open, openAnother: open };
  },
  numRuns: 50,
});
