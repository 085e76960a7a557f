import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Scope } from "@artifact-kit/core";
import {
  artifactEffectHandler,
  FsEffectJournal,
  journalArtifacts,
  reconcile,
} from "@artifact-kit/effects";
import { MemoryArtifactService } from "@artifact-kit/memory";

const root = mkdtempSync(join(tmpdir(), "effects-smoke-"));
const journal = new FsEffectJournal({ root });
const service = new MemoryArtifactService();
const scope: Scope = { kind: "session", app: "smoke", user: "u", session: "s" };
const artifacts = journalArtifacts(service, scope, { journal, owner: "smoke", leaseMs: 1000 });
const kept = await artifacts.put("kept.txt", new TextEncoder().encode("kept"));
await artifacts.commit(kept.effectId);
const orphan = await artifacts.put("orphan.txt", new TextEncoder().encode("orphan"));
// Past the writer's 1 s lease (at least: a slow machine only waits longer). The pass's budget
// and lease are generous: on a loaded machine a short budget could defer the orphan.
await new Promise((resolve) => setTimeout(resolve, 1100));
const report = await reconcile(journal, artifactEffectHandler(service), {
  owner: "smoke-reconciler",
  limit: 10,
  timeBudgetMs: 60_000,
  leaseMs: 60_000,
  retry: { attempts: 3, backoffMs: 100, maxBackoffMs: 1000 },
});
const outcome = report.settled.find((each) => each.effectId === orphan.effectId)?.outcome;
if (outcome !== "compensated") throw new Error(`the orphan was not compensated: ${outcome}`);
if ((await service.listNames(scope)).items.join() !== "kept.txt") throw new Error("orphan left");
await journal.close();
await service.close();
rmSync(root, { recursive: true, force: true });
console.log(`effects: committed v${kept.receipt.version}, reconciled an orphan (${outcome})`);
