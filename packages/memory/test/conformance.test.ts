import { describeArtifactService } from "@artifact-kit/core/conformance";
import { memorySubjects } from "../src/testing.js";

describeArtifactService("memory", { ...memorySubjects(), numRuns: 100 });
