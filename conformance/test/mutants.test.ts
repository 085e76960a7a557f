import { artifactServiceChecks, runChecks } from "@artifact-kit/core/conformance";
import { MemoryArtifactService } from "@artifact-kit/memory";
import { describe, expect, it } from "vitest";
import { MUTANTS } from "../mutants/index.js";
import { memorySubjects } from "./adapters.js";

// The kit is itself tested: each mutant is broken in exactly one way and must fail at
// least one check. A mutant that passes is a bug in the kit.

const NUM_RUNS = 50;

describe("the conformance kit rejects every mutant", () => {
  it("has at least twelve mutants", () => {
    expect(MUTANTS.length).toBeGreaterThanOrEqual(12);
  });

  it("passes the unbroken memory adapter through the same harness", async () => {
    const checks = artifactServiceChecks({
      ...memorySubjects((options) => new MemoryArtifactService(options)),
      numRuns: NUM_RUNS,
    });
    const failed = (await runChecks(checks)).filter((result) => result.status === "failed");
    expect(failed).toEqual([]);
  });

  for (const mutant of MUTANTS) {
    it(`rejects the mutant that ${mutant.name}`, async () => {
      const checks = artifactServiceChecks({ ...memorySubjects(mutant.make), numRuns: NUM_RUNS });
      const results = await runChecks(checks);
      const caughtBy = results
        .filter((result) => result.status === "failed")
        .map((result) => result.name);
      expect(caughtBy, `no check failed for the mutant that ${mutant.name}`).not.toEqual([]);
    });
  }
});
