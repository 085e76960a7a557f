import { MemoryEffectJournal } from "@artifact-kit/effects";
import { describeEffectJournal } from "@artifact-kit/effects/conformance";
import { MemoryArtifactService } from "@artifact-kit/memory";

// Mutation target "effects": the effect journal kit over the memory journal, with the package's
// reconciler, handler and journaled writes, is the only suite that may kill their mutants.
describeEffectJournal("memory", {
  async open(clock) {
    const journal = new MemoryEffectJournal({ clock });
    return { journal, peer: journal, cleanup: () => journal.close() };
  },
  service: async () => new MemoryArtifactService(),
});
