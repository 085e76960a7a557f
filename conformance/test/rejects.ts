import {
  type ArtifactServiceConformanceOptions,
  artifactServiceChecks,
} from "@artifact-kit/core/conformance";
import { afterAll, expect } from "vitest";
import { firstFailure } from "../mutants/first-failure.js";

// The kit is itself tested: each mutant is broken in exactly one way and must fail a check
// at the matrix's settings. A mutant that passes is a bug in the kit. The checks run in the
// kit's order and stop at the first failure; the law that failed is reported at the end
// (it is the "killed by" column of conformance/README.md).

export const PATCHED_COPY_LIMIT_MS = 1_200_000;
// Some mutants break a lock, and a lock's absence shows only when racers meet in its window:
// the race laws run many rounds, yet a quiet machine can miss it in one whole kit run (two
// such postgres copies passed one CI run each on 2026-12-03), and a law's random inputs can
// miss a rare case in one run as well. As the outside measure does, every mutant gets up to
// three runs of the kit; one a law catches at once costs one, and one that needed more is
// named so in the report of what killed each (a catch worth making surer).
export const KIT_RUNS_PER_MUTANT = 3;

// Each file that registers mutants prints, at its end, the law that killed each one.
const killedBy: [mutant: string, law: string][] = [];
afterAll(() => {
  console.info(killedBy.map(([mutant, law]) => `${mutant} -> ${law}`).join("\n"));
});

export async function expectRejected(
  mutant: string,
  options: ArtifactServiceConformanceOptions,
  onlyTheModelCatches = false,
  /** The family of laws that must catch the bug on its own, when only that family can see it. */
  group?: string,
  /** How many runs of the kit the mutant gets at most, until a check fails. */
  runs = KIT_RUNS_PER_MUTANT,
) {
  // A family named must catch the bug by itself: its laws alone run, so that a broader law
  // that happens to catch the same bug first (linearizability sees many) does not hide
  // whether the family would.
  const checks = artifactServiceChecks(
    group === undefined ? options : { ...options, only: `${group}: ` },
    mutant,
  );
  let failure = await firstFailure(checks);
  let run = 1;
  for (; failure === undefined && run < runs; run++) failure = await firstFailure(checks);
  expect(failure, `no check failed for the mutant that ${mutant} in ${runs} runs`).toBeDefined();
  killedBy.push([mutant, `${failure?.name ?? ""}${run > 1 ? ` (in run ${run} of ${runs})` : ""}`]);
  // The model runs last: a mutant only it catches passed every fixed law before it.
  if (onlyTheModelCatches) expect(failure?.name, failure?.report).toMatch(/^model: /);
  if (group !== undefined) expect(failure?.name, failure?.report).toMatch(`${group}: `);
}
