import { describeArtifactService } from "@artifact-kit/core/conformance";
import type { MemoryArtifactServiceOptions } from "@artifact-kit/memory";
import { memoryShards } from "../memory.js";
import { ShardedArtifactService } from "../service.js";
import { ScriptedShards } from "./scripted-shards.js";

const SMALL_PAGES = { maxPageLimit: 25, legacyListLimit: 30 };

const router = (strategy: "shared" | "exact_scope", options?: MemoryArtifactServiceOptions) =>
  new ShardedArtifactService(memoryShards(options), { strategy });

/**
 * The artifact-service kit over the router with in-process workers: memory workers shared
 * and exact-scope, and scripted workers reached only through their public methods. The fast
 * subjects, run by the package's tests and by the mutation runner alike.
 */
export function describeRouterOverMemory(numRuns = 50): void {
  // Shared: one memory worker, so its quotas are global and the kit drives every one of them.
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
    numRuns,
  });

  // Exact scope: every worker holds one scope, so the memory "total" quotas bound that scope
  // alone (capabilities say per_shard). They are left large here: the kit's total-quota
  // checks assume one budget across scopes, which per-shard quotas by design are not.
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
    numRuns,
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
    numRuns,
  });
}
