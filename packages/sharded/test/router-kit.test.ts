import { describeShardedRouter } from "../src/conformance/index.js";
import { ShardedArtifactService } from "../src/index.js";

// The router kit over this package's router.
describeShardedRouter("ShardedArtifactService", {
  create: (factory, options) => new ShardedArtifactService(factory, options),
});
