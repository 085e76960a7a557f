import { describeRunStore } from "@artifact-kit/core/conformance";
import { fsSubject } from "@artifact-kit/fs/testing";
import { memorySubjects } from "@artifact-kit/memory/testing";
import { inMemoryRunStoreSubject, runStoreOver } from "../src/testing.js";

describeRunStore("InMemoryRunStore", { create: inMemoryRunStoreSubject, numRuns: 200 });

// A reopen over the same service: a new store that must rebuild everything from the service.
describeRunStore("ArtifactServiceRunStore over @artifact-kit/memory", {
  create: runStoreOver(memorySubjects().create),
  numRuns: 100,
});

// A real restart: the fs service is closed and a new one opened on the same root, under a
// new store, which must find every run, file, step id and position again.
// Small pages, so that a reload reads several even at the small scale a disk allows here.
describeRunStore("ArtifactServiceRunStore over @artifact-kit/fs, restarted between runs", {
  create: runStoreOver(() => fsSubject({ maxPageLimit: 7 })),
  numRuns: 40,
  scale: 40,
});
