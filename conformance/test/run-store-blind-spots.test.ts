import { runChecks, runStoreChecks } from "@artifact-kit/core/conformance";
import { describe, expect, it } from "vitest";
import { blindSpotRunStores, unpatchedRunStores } from "../mutants/run-store/blind-spots.js";
import { MATRIX_RUNS } from "./adapters.js";

// Issue 31's third batch for run stores: one-bug stores of classes no earlier mutant named,
// each of which must fail a law of the run-store kit.
const mutants = await blindSpotRunStores();
const unpatched = await unpatchedRunStores();

describe("the run-store kit rejects every blind-spot mutant", () => {
  for (const [name, create] of Object.entries(mutants)) {
    it(name, async () => {
      const checks = runStoreChecks({ create, numRuns: MATRIX_RUNS.runStore, scale: 300 });
      const failed = (await runChecks(checks)).filter((result) => result.status === "failed");
      console.info(`run store: ${name} -> ${failed.map((r) => r.name).join(" | ") || "SURVIVED"}`);
      expect(failed.map((result) => result.name)).not.toEqual([]);
    });
  }
  for (const [name, create] of Object.entries(unpatched)) {
    it(`while the ${name} passes every check`, async () => {
      const checks = runStoreChecks({ create, numRuns: MATRIX_RUNS.runStore, scale: 300 });
      const failed = (await runChecks(checks)).filter((result) => result.status === "failed");
      expect(failed.map((result) => [result.name, result.detail])).toEqual([]);
    });
  }
});
