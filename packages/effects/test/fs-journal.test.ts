import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FsEffectJournal } from "@artifact-kit/effects";
import { describeEffectJournal } from "@artifact-kit/effects/conformance";

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
});
