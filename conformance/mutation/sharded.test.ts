import { ShardedArtifactService } from "@artifact-kit/sharded";
import { describeRouterOverMemory, describeShardedRouter } from "@artifact-kit/sharded/conformance";

// Mutation target "sharded": the router kit (admission, reclamation, timers, failure, close,
// transfer holds, scale, two routers on one backend) and the artifact-service kit over the
// router with memory workers, shared and exact-scope, and with scripted workers (the subjects
// packages/sharded/test runs too, without its slower fs subjects).

describeShardedRouter("ShardedArtifactService", {
  create: (factory, options) => new ShardedArtifactService(factory, options),
});

describeRouterOverMemory();
