import type { Parameters as FcParameters } from "fast-check";
import type { ArtifactServiceConformanceOptions } from "./subject.js";

/** A check either passes (resolves), fails (throws) or is skipped with the reason why. */
export type CheckOutcome = { skipped: string } | undefined;

export interface ConformanceCheck {
  /** "group: what is checked" */
  readonly name: string;
  run(): Promise<CheckOutcome>;
}

export const skipped = (reason: string): CheckOutcome => ({ skipped: reason });

/** fast-check parameters from the kit options; failures report the seed and shrunk counterexample. */
export function propertyParameters<T>(
  options: Pick<ArtifactServiceConformanceOptions, "numRuns" | "seed">,
): FcParameters<T> {
  return {
    numRuns: options.numRuns ?? 100,
    ...(options.seed === undefined ? {} : { seed: options.seed }),
  };
}
