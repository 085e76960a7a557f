import { artifactServiceChecks, runChecks } from "@artifact-kit/core/conformance";
import { MemoryArtifactService } from "@artifact-kit/memory";
import { memorySubjects } from "@artifact-kit/memory/testing";
import { describe, expect, it } from "vitest";
import { FAULT_MUTANTS, faultyMemorySubject } from "../mutants/faults.js";
import { FS_MUTANTS } from "../mutants/fs/patches.js";
import { HANDLE_MUTANTS, sharedStoreSubject } from "../mutants/handles.js";
import { MUTANTS } from "../mutants/index.js";
import { POSTGRES_MUTANTS } from "../mutants/postgres/patches.js";
import { RUN_STORE_MUTANTS } from "../mutants/run-store/mutants.js";
import { MATRIX_RUNS } from "./adapters.js";
import { expectRejected } from "./rejects.js";

// The kit is itself tested: each mutant is broken in exactly one way and must fail a check
// at the matrix's settings (see ./rejects.ts). The patched copies of the real adapters are in
// ./patched-copies.test.ts, a file of their own so that vitest runs the two side by side.

const memoryOptions = (make: (typeof MUTANTS)[number]["make"]) => ({
  ...memorySubjects(make),
  numRuns: MATRIX_RUNS.memory,
});

describe("the conformance kit rejects every mutant", () => {
  it("has at least forty mutants: at least eight fs and twelve postgres patched copies and eight run stores", () => {
    const total = MUTANTS.length + FS_MUTANTS.length + Object.keys(RUN_STORE_MUTANTS).length;
    expect(total).toBeGreaterThanOrEqual(40);
    expect(FS_MUTANTS.length).toBeGreaterThanOrEqual(8);
    expect(POSTGRES_MUTANTS.length).toBeGreaterThanOrEqual(12);
    expect(Object.keys(RUN_STORE_MUTANTS).length).toBeGreaterThanOrEqual(8);
  });

  it("passes the unbroken memory adapter through the same harness", async () => {
    const checks = artifactServiceChecks(
      memoryOptions((options) => new MemoryArtifactService(options)),
    );
    const failed = (await runChecks(checks)).filter((result) => result.status === "failed");
    expect(failed).toEqual([]);
  });

  for (const mutant of MUTANTS) {
    it(`rejects the mutant that ${mutant.name}`, () =>
      expectRejected(
        mutant.name,
        memoryOptions(mutant.make),
        mutant.onlyTheModelCatches,
        mutant.onlyCaughtBy,
      ));
  }

  it("passes the unbroken memory adapter shared by two handles", async () => {
    // Only the laws that use a second handle: the others see the memory adapter alone.
    const options = { create: sharedStoreSubject(), numRuns: MATRIX_RUNS.memory, only: "handles" };
    const results = await runChecks(artifactServiceChecks(options));
    expect(results.length).toBeGreaterThanOrEqual(4);
    expect(results.filter((result) => result.status !== "passed")).toEqual([]);
  });

  for (const mutant of HANDLE_MUTANTS) {
    it(`rejects the second handle that ${mutant.name}`, () =>
      expectRejected(
        mutant.name,
        { create: sharedStoreSubject(mutant.open), numRuns: MATRIX_RUNS.memory },
        false,
        "handles",
      ));
  }

  it("passes the unbroken memory adapter behind an in-process fault injector", async () => {
    const options = { create: faultyMemorySubject(), numRuns: MATRIX_RUNS.memory, only: "faults" };
    const results = (await runChecks(artifactServiceChecks(options))).filter((result) =>
      result.name.startsWith("faults: "),
    );
    expect(results.map((result) => result.status)).toEqual(["passed"]);
  });

  for (const mutant of FAULT_MUTANTS) {
    it(`rejects the adapter that ${mutant.name}`, () =>
      expectRejected(
        mutant.name,
        { create: faultyMemorySubject(mutant.wrap), numRuns: MATRIX_RUNS.memory },
        false,
        "faults",
      ));
  }
});
