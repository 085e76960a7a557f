import { MemoryEffectJournal } from "@artifact-kit/effects";
import { describeEffectJournal } from "@artifact-kit/effects/conformance";
import { MemoryArtifactService } from "@artifact-kit/memory";

describeEffectJournal("memory", {
  async open(clock) {
    const journal = new MemoryEffectJournal({ clock });
    return { journal, peer: journal, cleanup: () => journal.close() };
  },
  service: async () => new MemoryArtifactService(),
});
