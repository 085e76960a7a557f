import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FsEffectJournal } from "@artifact-kit/effects";
import { describeEffectJournal } from "@artifact-kit/effects/conformance";
import { MemoryArtifactService } from "@artifact-kit/memory";

describeEffectJournal("fs", {
  async open(clock) {
    const root = await mkdtemp(join(tmpdir(), "effects-journal-"));
    const journal = new FsEffectJournal({ root, clock });
    const peer = new FsEffectJournal({ root, clock });
    return {
      journal,
      peer,
      async cleanup() {
        await journal.close();
        await peer.close();
        await rm(root, { recursive: true, force: true });
      },
    };
  },
  // The journal is on disk; the service it journals for may be any: memory keeps this fast.
  service: async () => new MemoryArtifactService(),
});
