import { describe, it } from "vitest";
import { domainLaws } from "./domain-laws.js";
import { handlerLaws } from "./handler-laws.js";
import { journalLaws } from "./journal-laws.js";
import { journaledLaws } from "./journaled-laws.js";
import { raceLaws } from "./race-laws.js";
import { reconcileLaws } from "./reconcile-laws.js";
import { refusalLaws } from "./refusal-laws.js";
import { scaleLaws } from "./scale-laws.js";
import { stateLaws } from "./state-laws.js";
import type { EffectJournalConformanceOptions, Register } from "./support.js";
import { timeLaws } from "./time-laws.js";

export type { EffectJournalConformanceOptions, JournalSubject } from "./support.js";

/** One law of the kit, to run outside vitest (the kit's own mutant tests do). */
export interface EffectJournalCheck {
  readonly name: string;
  readonly run: () => Promise<void>;
}

/** Every law, registered through `it`, in the order they are reported. */
function registerLaws(options: EffectJournalConformanceOptions, it: Register): void {
  journalLaws(options, it);
  timeLaws(options, it);
  domainLaws(options, it);
  scaleLaws(options, it);
  reconcileLaws(options, it);
  handlerLaws(options, it);
  refusalLaws(options, it);
  journaledLaws(options, it);
  stateLaws(options, it);
  raceLaws(options, it);
}

/** Registers the effect-journal conformance kit as a vitest suite. */
export function describeEffectJournal(
  name: string,
  options: EffectJournalConformanceOptions,
): void {
  // Durable journals write for every law: two minutes each unless a law says more, never
  // vitest's five seconds, whatever the caller's configuration.
  describe(`effect journal conformance: ${name}`, () =>
    registerLaws(options, (law, run, timeoutMs) => it(law, run, timeoutMs ?? 120_000)));
}

/** Every law of the kit as a check to run directly; `only` keeps those whose name has it. */
export function effectJournalChecks(
  options: EffectJournalConformanceOptions,
  only?: (name: string) => boolean,
): EffectJournalCheck[] {
  const checks: EffectJournalCheck[] = [];
  registerLaws(options, (name, run) => {
    if (only === undefined || only(name)) checks.push({ name, run });
  });
  return checks;
}
