import {
  COUNTING_LAWS,
  type RunStoreConformanceOptions,
  runChecks,
  runStoreChecks,
  SCALE_LAWS,
} from "@artifact-kit/core/conformance";
import { InMemoryRunStore } from "@artifact-kit/run-store";
import { describe, expect, it } from "vitest";
import { RUN_STORE_MUTANTS } from "../mutants/run-store/mutants.js";
import { SCALE_MUTANTS, serviceBacked } from "../mutants/run-store/scale-mutants.js";
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

// Each scale, domain, two-handle or namespace mutant passes every law the kit had before those
// laws (and the counting laws added after them, which also catch a run count that races), and
// fails at least one of them.
describe("the run-store kit's scale, domain and two-handle laws reject what the others let through", () => {
  const added = new Set(
    [...SCALE_LAWS, ...COUNTING_LAWS].map((law) => `${law.group}: ${law.name}`),
  );
  const failedChecks = async (
    create: RunStoreConformanceOptions["create"],
    laws: "old" | "new",
  ) => {
    const checks = runStoreChecks({ create, numRuns: MATRIX_RUNS.runStore }).filter(
      (check) => added.has(check.name) === (laws === "new"),
    );
    const results = await runChecks(checks);
    return results.filter((result) => result.status === "failed").map((result) => result.name);
  };

  for (const [name, create] of Object.entries(SCALE_MUTANTS)) {
    it(name, async () => {
      expect(await failedChecks(create, "old"), "the kit before these laws failed it").toEqual([]);
      const killedBy = await failedChecks(create, "new");
      expect(killedBy).not.toEqual([]);
      console.info(`run store: ${name} -> ${killedBy.join(" | ")}`);
    });
  }

  it("while the unbroken service-backed store passes them, sibling and peer included", async () => {
    expect(await failedChecks(serviceBacked("sibling"), "new")).toEqual([]);
  });
});
