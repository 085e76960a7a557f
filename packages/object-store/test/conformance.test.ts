import { describeArtifactService } from "@artifact-kit/core/conformance";
import { memorySubjects } from "./support/subjects.js";

// The whole kit over a bucket in memory, once per format: the protocol's own conformance,
// apart from any SDK or server.
describeArtifactService("object-store, trailer format (memory bucket)", {
  ...memorySubjects("trailer"),
  numRuns: 10,
});
describeArtifactService("object-store, header format (memory bucket)", {
  ...memorySubjects("header"),
  numRuns: 10,
});
