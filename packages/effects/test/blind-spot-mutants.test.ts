import { type EffectJournal, MemoryEffectJournal } from "@artifact-kit/effects";
import {
  type EffectJournalConformanceOptions,
  effectJournalChecks,
} from "@artifact-kit/effects/conformance";
import { MemoryArtifactService } from "@artifact-kit/memory";
import { describe, expect, it } from "vitest";
import { BLIND_SPOT_JOURNALS, BLIND_SPOT_RECONCILERS } from "./mutants/blind-spots.js";

// Issue 31's third batch: mutants of classes no earlier mutant named. Each must fail a law.

async function failures(options: EffectJournalConformanceOptions) {
  const failed: string[] = [];
  for (const check of effectJournalChecks(options)) {
    await check.run().catch(() => failed.push(check.name));
  }
  return failed;
}

const service = async () => new MemoryArtifactService();

function memorySubject(make: (clock: () => number) => EffectJournal) {
  return async (clock: () => number) => {
    const journal = make(clock);
    return { journal, peer: journal, cleanup: () => journal.close() };
  };
}
const journalOf = (clock: () => number) => new MemoryEffectJournal({ clock });

const SUBJECTS: Record<string, EffectJournalConformanceOptions> = {
  ...Object.fromEntries(
    Object.entries(BLIND_SPOT_JOURNALS).map(([name, make]) => [
      `journal: ${name}`,
      { open: memorySubject(make), service },
    ]),
  ),
  ...Object.fromEntries(
    Object.entries(BLIND_SPOT_RECONCILERS).map(([name, reconcile]) => [
      `reconciler: ${name}`,
      { open: memorySubject(journalOf), service, reconcile },
    ]),
  ),
};

describe("the effect journal kit rejects every blind-spot mutant", () => {
  for (const [name, options] of Object.entries(SUBJECTS)) {
    it(name, async () => {
      const killedBy = await failures(options);
      console.info(`effect journal kit: ${name} -> ${killedBy.join(" | ") || "SURVIVED"}`);
      expect(killedBy).not.toEqual([]);
    });
  }
});
