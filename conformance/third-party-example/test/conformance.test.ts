import { describeArtifactService } from "@artifact-kit/core/conformance";
import { ExampleMapService } from "../src/adapter.js";

describeArtifactService("example-map-adapter", {
  create: async () => ({ service: new ExampleMapService() }),
  createBounded: async () => ({
    service: new ExampleMapService({ maxArtifactBytes: 1024, maxPageLimit: 20 }),
  }),
  numRuns: 50,
});
