import { mkdtemp, readdir, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FsEffectJournal } from "@artifact-kit/effects";
import { afterEach, expect, it } from "vitest";

const roots: string[] = [];
afterEach(async () => {
  for (const root of roots.splice(0)) await rm(root, { recursive: true, force: true });
});

it("prune sweeps staged files a killed writer left, but never a fresh one", async () => {
  const root = await mkdtemp(join(tmpdir(), "effects-leftovers-"));
  roots.push(root);
  const journal = new FsEffectJournal({ root });
  await journal.list(); // lays out the directories
  const dayAgo = new Date(Date.now() - 86_400_000);
  for (const name of ["old-1.json", "old-2.json", "old-3.json"]) {
    await writeFile(join(root, "tmp", name), "{");
    await utimes(join(root, "tmp", name), dayAgo, dayAgo);
  }
  await writeFile(join(root, "tmp", "fresh.json"), "{");
  expect(await journal.prune({ olderThan: Date.now(), limit: 2 })).toEqual({ pruned: 0 });
  expect((await readdir(join(root, "tmp"))).length).toBe(2);
  await journal.prune({ olderThan: Date.now(), limit: 2 });
  expect(await readdir(join(root, "tmp"))).toEqual(["fresh.json"]);
  await journal.close();
});
