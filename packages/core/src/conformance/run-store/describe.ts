import { describe, it } from "vitest";
import { vitestLimitMs } from "../law-limit.js";
import { runStoreChecks } from "./checks.js";
import type { RunStoreConformanceOptions } from "./subject.js";

/**
 * Registers the whole run-store conformance kit as a vitest suite. A check that does not
 * apply (durability without `reopen`) is reported as skipped with its reason.
 */
export function describeRunStore(name: string, options: RunStoreConformanceOptions): void {
  describe(`run store conformance: ${name}`, () => {
    for (const check of runStoreChecks(options, name)) {
      it(check.name, { timeout: vitestLimitMs(options.testTimeoutMs) }, async (context) => {
        const outcome = await check.run();
        if (outcome) context.skip(outcome.skipped);
      });
    }
  });
}
