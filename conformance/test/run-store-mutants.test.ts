import { runChecks, runStoreChecks } from "@artifact-kit/core/conformance";
import { InMemoryRunStore } from "@artifact-kit/run-store";
import { describe, expect, it } from "vitest";
import { RUN_STORE_MUTANTS } from "../mutants/run-store/mutants.js";
import { MATRIX_RUNS } from "./adapters.js";

// The run-store kit is itself tested: every mutant breaks one rule and must fail a check.
describe("the run-store kit rejects every run-store mutant", () => {
  for (const [name, Mutant] of Object.entries(RUN_STORE_MUTANTS)) {
    it(name, async () => {
      const checks = runStoreChecks({
        create: async (bounds) => ({ store: new Mutant(new InMemoryRunStore({ bounds })) }),
        numRuns: MATRIX_RUNS.runStore,
      });
      const failed = (await runChecks(checks)).filter((result) => result.status === "failed");
      expect(failed.map((result) => result.name)).not.toEqual([]);
      console.info(
        `run store: ${name} -> ${failed.map((result) => result.name.split(":")[0]).join(", ")}`,
      );
    });
  }

  it("while the unbroken store passes every check", async () => {
    const checks = runStoreChecks({
      create: async (bounds) => ({ store: new InMemoryRunStore({ bounds }) }),
      numRuns: MATRIX_RUNS.runStore,
    });
    const failed = (await runChecks(checks)).filter((result) => result.status === "failed");
    expect(failed).toEqual([]);
  });
});
