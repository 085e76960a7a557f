import { type EffectJournal, MemoryEffectJournal, type reconcile } from "@artifact-kit/effects";
import {
  type EffectJournalConformanceOptions,
  effectJournalChecks,
} from "@artifact-kit/effects/conformance";
import { MemoryArtifactService } from "@artifact-kit/memory";

// What the kit's mutant tests share: journal mutants run over the memory journal's hooks,
// reconciler mutants over the unbroken memory journal, every law run to the end.

/** The names of the laws that fail for `options`, among those `only` keeps. */
export async function failures(
  options: EffectJournalConformanceOptions,
  only: (name: string) => boolean = () => true,
) {
  const failed: string[] = [];
  for (const check of effectJournalChecks(options, only)) {
    await check.run().catch(() => failed.push(check.name));
  }
  return failed;
}

type Reconcile = typeof reconcile;

const service = async () => new MemoryArtifactService();

function memorySubject(make: (clock: () => number) => EffectJournal) {
  return async (clock: () => number) => {
    const journal = make(clock);
    return { journal, peer: journal, cleanup: () => journal.close() };
  };
}

const journalOf = (clock: () => number) => new MemoryEffectJournal({ clock });

/** The kit's options for the unbroken memory journal and reconciler. */
export const unbrokenSubject: EffectJournalConformanceOptions = {
  open: memorySubject(journalOf),
  service,
};

/** One subject per mutant, named "journal: ..." or "reconciler: ...". */
export function mutantSubjects(
  journals: Readonly<Record<string, (clock: () => number) => EffectJournal>>,
  reconcilers: Readonly<Record<string, Reconcile>>,
): Record<string, EffectJournalConformanceOptions> {
  return {
    ...Object.fromEntries(
      Object.entries(journals).map(([name, make]) => [
        `journal: ${name}`,
        { open: memorySubject(make), service },
      ]),
    ),
    ...Object.fromEntries(
      Object.entries(reconcilers).map(([name, reconcile]) => [
        `reconciler: ${name}`,
        { ...unbrokenSubject, reconcile },
      ]),
    ),
  };
}
