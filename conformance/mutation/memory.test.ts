import { describeArtifactService } from "@artifact-kit/core/conformance";
import { memorySubjects } from "@artifact-kit/memory/testing";
import { MATRIX_RUNS } from "../test/adapters.js";

// Mutation target "memory": the artifact-service kit over the memory adapter, at the matrix's
// settings, is the only suite that may kill a mutant of the adapter, its template or validation.
describeArtifactService("memory", { ...memorySubjects(), numRuns: MATRIX_RUNS.memory });
