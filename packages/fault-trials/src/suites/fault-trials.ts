import { describe, expect, it } from "vitest";
import { trialOptionsFromEnv } from "../env.js";
import { type FaultTrialTarget, runFaultTrials } from "../trials.js";

/**
 * Seeded trials: put, streamed upload, keyed put and its retry, delete of a version, of
 * latest and of all (and repair, where the subject has it), each with a lost reply, the
 * backend's 503 or a held request armed on one of its requests; then a clean client checks
 * that nothing acknowledged is lost and nothing deleted comes back (see checkLane).
 */
export function describeFaultTrials(target: FaultTrialTarget): void {
  const options = trialOptionsFromEnv();
  describe("seeded fault trials", () => {
    it(
      "keep every promise through lost replies, 503s and held requests",
      async () => {
        const report = await runFaultTrials(target, options);
        console.info(JSON.stringify({ ...report, violations: report.violations.length }));
        expect(report.violations).toEqual([]);
        expect(report.unhandled).toEqual([]);
        expect(report.faults).toBeGreaterThanOrEqual(options.minimumFaults);
      },
      options.testTimeoutMs,
    );
  });
}
