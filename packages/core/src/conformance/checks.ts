import type { ConformanceCheck } from "./check.js";
import { boundChecks } from "./checks/bounds.js";
import { deadlineChecks } from "./checks/deadlines.js";
import { lawChecks } from "./checks/laws.js";
import { lifecycleChecks } from "./checks/lifecycle.js";
import { modelChecks } from "./checks/model.js";
import { raceChecks } from "./checks/races.js";
import { transferChecks } from "./checks/transfer.js";
import { validationChecks } from "./checks/validation.js";
import type { ArtifactServiceConformanceOptions } from "./subject.js";

/** Every check of the artifact-service contract, in the order they are reported. */
export function artifactServiceChecks(
  options: ArtifactServiceConformanceOptions,
): ConformanceCheck[] {
  return [
    ...lifecycleChecks(options),
    ...lawChecks(options),
    ...validationChecks(options),
    ...modelChecks(options),
    ...raceChecks(options),
    ...deadlineChecks(options),
    ...boundChecks(options),
    ...transferChecks(options),
  ];
}

export interface CheckResult {
  name: string;
  status: "passed" | "failed" | "skipped";
  /** The failure (with fast-check's seed and shrunk counterexample) or the skip reason. */
  detail?: string;
}

/** Runs checks outside a test runner, e.g. to prove the kit rejects a broken adapter. */
export async function runChecks(checks: readonly ConformanceCheck[]): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const check of checks) {
    try {
      const outcome = await check.run();
      results.push(
        outcome
          ? { name: check.name, status: "skipped", detail: outcome.skipped }
          : { name: check.name, status: "passed" },
      );
    } catch (error) {
      results.push({
        name: check.name,
        status: "failed",
        detail: error instanceof Error ? error.message : String(error),
      });
    }
  }
  return results;
}
