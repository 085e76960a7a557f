import { describe, it } from "vitest";
import { artifactServiceChecks } from "./checks.js";
import { vitestLimitMs } from "./law-limit.js";
import type { ArtifactServiceConformanceOptions } from "./subject.js";

/**
 * Registers the whole artifact-service conformance kit as a vitest suite. A check that does
 * not apply (an undeclared or unreachable bound) is reported as skipped with its reason; a
 * failure reports the law, the shrunk counterexample, the reason and a replay line.
 */
export function describeArtifactService(
  name: string,
  options: ArtifactServiceConformanceOptions,
): void {
  describe(`artifact service conformance: ${name}`, () => {
    for (const check of artifactServiceChecks(options, name)) {
      it(check.name, { timeout: vitestLimitMs(options.testTimeoutMs) }, async (context) => {
        const outcome = await check.run();
        if (outcome) context.skip(outcome.skipped);
      });
    }
  });
}
