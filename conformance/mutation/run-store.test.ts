import { describeRunStore } from "@artifact-kit/core/conformance";
import { memorySubjects } from "@artifact-kit/memory/testing";
import { inMemoryRunStoreSubject, runStoreOver } from "@artifact-kit/run-store/testing";
import { MATRIX_RUNS } from "../test/adapters.js";

// Mutation target "run-store": the run-store kit over both stores, at the matrix's settings.
describeRunStore("InMemoryRunStore", {
  create: inMemoryRunStoreSubject,
  numRuns: MATRIX_RUNS.runStore,
});
describeRunStore("ArtifactServiceRunStore over @artifact-kit/memory", {
  create: runStoreOver(memorySubjects().create),
  numRuns: MATRIX_RUNS.runStore,
});
