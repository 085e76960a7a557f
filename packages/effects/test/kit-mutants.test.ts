import { type EffectJournal, MemoryEffectJournal } from "@artifact-kit/effects";
import {
  type EffectJournalConformanceOptions,
  effectJournalChecks,
} from "@artifact-kit/effects/conformance";
import { MemoryArtifactService } from "@artifact-kit/memory";
import { describe, expect, it } from "vitest";
import { JOURNAL_MUTANTS } from "./mutants/journals.js";
import { RECONCILER_MUTANTS } from "./mutants/reconcilers.js";

// The journal kit is itself tested: each mutant breaks one rule, passes every law the kit had
// before its time, value-domain, scale and reconciler laws, and fails at least one of those.

const NEW_FAMILIES = [
  "time:",
  "domain:",
  "scale:",
  "reconciler:",
  "refusals:",
  "journaled:",
  "states:",
  "races:",
];
const isNew = (name: string) => NEW_FAMILIES.some((family) => name.startsWith(family));

async function failures(options: EffectJournalConformanceOptions, only: (name: string) => boolean) {
  const failed: string[] = [];
  for (const check of effectJournalChecks(options, only)) {
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
    Object.entries(JOURNAL_MUTANTS).map(([name, make]) => [
      `journal: ${name}`,
      { open: memorySubject(make), service },
    ]),
  ),
  ...Object.fromEntries(
    Object.entries(RECONCILER_MUTANTS).map(([name, reconcile]) => [
      `reconciler: ${name}`,
      { open: memorySubject(journalOf), service, reconcile },
    ]),
  ),
};

describe("the effect journal kit rejects every mutant the old kit let through", () => {
  for (const [name, options] of Object.entries(SUBJECTS)) {
    it(name, async () => {
      expect(
        await failures(options, (law) => !isNew(law)),
        "the old kit already failed it",
      ).toEqual([]);
      const killedBy = await failures(options, isNew);
      expect(killedBy).not.toEqual([]);
      console.info(`effect journal kit: ${name} -> ${killedBy.join(" | ")}`);
    });
  }

  it("while the unbroken journal and reconciler pass every law", async () => {
    const options = { open: memorySubject(journalOf), service };
    expect(await failures(options, () => true)).toEqual([]);
  });
});
