import { describeArtifactService } from "@artifact-kit/core/conformance";
import { MemoryArtifactService } from "@artifact-kit/memory";
import { memoryShards, ShardedArtifactService } from "@artifact-kit/sharded";
import { memorySubjects } from "./adapters.js";
import { fsSubjects, gcsSubjects, storageClient } from "./durable.js";
import { postgresMatrixSubjects } from "./postgres.js";

// Every adapter in the workspace, through the same kit. Durable adapters add `reopen`.
describeArtifactService("memory", {
  ...memorySubjects((options) => new MemoryArtifactService(options)),
  numRuns: 200,
});

// The router over memory: shared (the worker's quotas are global, so the small ones apply)
// and exact scope (quotas per shard; see packages/sharded/test for its bounded subject).
describeArtifactService("sharded (shared, memory)", {
  ...memorySubjects(
    (options) => new ShardedArtifactService(memoryShards(options), { strategy: "shared" }),
  ),
  numRuns: 50,
});
describeArtifactService("sharded (exact_scope, memory)", {
  create: async () => ({ service: new ShardedArtifactService(memoryShards()) }),
  numRuns: 50,
});

// Durable adapters, with reopen. Their own packages run the kit at full strength with
// bounded subjects; here they run beside the others on every Node the matrix covers.
describeArtifactService("fs", { ...fsSubjects, numRuns: 30 });
describeArtifactService(`gcs on fake-gcs-server (${storageClient})`, {
  ...gcsSubjects(),
  numRuns: 20,
});
describeArtifactService("postgres", { ...postgresMatrixSubjects(), numRuns: 20 });
