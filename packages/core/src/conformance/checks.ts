import { bindLaw, type ConformanceCheck, type Law } from "./check.js";
import { aliasingLaws } from "./checks/aliasing.js";
import { boundRaceLaws } from "./checks/bound-races.js";
import { boundLaws } from "./checks/bounds.js";
import { corruptionLaws } from "./checks/corruption.js";
import { cursorLaws } from "./checks/cursors.js";
import { deadlineLaws } from "./checks/deadlines.js";
import { faultRepeatLaws } from "./checks/fault-repeats.js";
import { faultScopeLaws } from "./checks/fault-scopes.js";
import { faultLaws } from "./checks/faults.js";
import { handleLaws } from "./checks/handles.js";
import { idempotencyLaws } from "./checks/idempotency.js";
import { inputLaws } from "./checks/inputs.js";
import { basicLaws } from "./checks/laws.js";
import { lifecycleLaws } from "./checks/lifecycle.js";
import { linearizabilityLaws } from "./checks/linearizable.js";
import { maintenanceLaws } from "./checks/maintenance.js";
import { modelLaws } from "./checks/model.js";
import { optionLaws } from "./checks/options.js";
import { prefixLaws } from "./checks/prefix.js";
import { publishGateLaws } from "./checks/publish-gate.js";
import { quotaLaws } from "./checks/quotas.js";
import { raceLaws } from "./checks/races.js";
import { readLaws } from "./checks/reads.js";
import { retryLaws } from "./checks/retries.js";
import { scaleLaws } from "./checks/scale.js";
import { scopeListingLaws } from "./checks/scope-listing.js";
import { scopeListingScaleLaws, scopeListingSharedLaws } from "./checks/scope-listing-shared.js";
import { scopeLaws } from "./checks/scopes.js";
import { signalLaws } from "./checks/signals.js";
import { stateLaws } from "./checks/state.js";
import { streamEndLaws } from "./checks/stream-ends.js";
import { declaredTransferLaws } from "./checks/transfer-declared.js";
import { downloadLaws } from "./checks/transfer-download.js";
import { uploadLaws } from "./checks/transfer-upload.js";
import { validationLaws } from "./checks/validation.js";
import { validationOpsLaws } from "./checks/validation-ops.js";
import { valueLaws } from "./checks/values.js";
import { writePathLaws } from "./checks/write-paths.js";
import type { ArtifactServiceConformanceOptions } from "./subject.js";

/** Every law of the artifact-service contract, in the order they are reported. */
export const ARTIFACT_SERVICE_LAWS: readonly Law[] = Object.freeze([
  // Fixed laws first, cheapest first, so a broken adapter is told quickly; the model-based
  // sequences, which find what no fixed law names, run last.
  ...lifecycleLaws,
  ...stateLaws,
  ...aliasingLaws,
  ...idempotencyLaws,
  ...retryLaws,
  ...publishGateLaws,
  ...scopeLaws,
  ...cursorLaws,
  ...prefixLaws,
  ...scopeListingLaws,
  ...validationLaws,
  ...validationOpsLaws,
  ...optionLaws,
  ...valueLaws,
  ...inputLaws,
  ...basicLaws,
  ...readLaws,
  ...boundLaws,
  ...quotaLaws,
  ...boundRaceLaws,
  ...uploadLaws,
  ...writePathLaws,
  ...downloadLaws,
  ...declaredTransferLaws,
  ...streamEndLaws,
  ...corruptionLaws,
  ...deadlineLaws,
  ...signalLaws,
  ...raceLaws,
  ...handleLaws,
  ...scopeListingSharedLaws,
  ...linearizabilityLaws,
  ...faultLaws,
  ...faultScopeLaws,
  ...faultRepeatLaws,
  ...maintenanceLaws,
  ...scaleLaws,
  ...scopeListingScaleLaws,
  ...modelLaws,
]);

/**
 * Every check of the contract bound to the subjects in `options` (only those matching
 * `options.only`, when given, and none matching `options.omit`). `subjectName` goes into
 * each failure's replay line.
 */
export function artifactServiceChecks(
  options: ArtifactServiceConformanceOptions,
  subjectName = "my-adapter",
): ConformanceCheck[] {
  const omitted = (name: string) => (options.omit ?? []).some((text) => name.includes(text));
  return ARTIFACT_SERVICE_LAWS.map((law) => bindLaw(law, options, subjectName)).filter(
    (check) =>
      (options.only === undefined || check.name.includes(options.only)) && !omitted(check.name),
  );
}

export interface CheckResult {
  name: string;
  status: "passed" | "failed" | "skipped";
  /** The failure report (law, counterexample, reason, replay line) or the skip reason. */
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
