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

// Durable changes are synced after their link, so a power loss can tear the newest revision
// (zero bytes or a truncated record). Such a change was never acknowledged: the effect reads
// as it stood before it, and the next change is published above the torn file.
it("reads past a torn newest revision, and an effect whose only revision is torn is absent", async () => {
  const root = await mkdtemp(join(tmpdir(), "effects-torn-"));
  roots.push(root);
  const journal = new FsEffectJournal({ root });
  const intent = {
    effectId: "torn",
    operation: "put" as const,
    scope: { kind: "app", app: "a" } as const,
    name: "n",
    requestDigest: "0".repeat(64),
  };
  const record = await journal.intend(intent, { owner: "w", leaseMs: 1000 });
  await writeFile(join(root, "effects", "torn", "0000000002.json"), "");
  expect(await journal.get("torn")).toEqual(record);
  const receipt = { version: 1, sha256: "a".repeat(64), size: 1 };
  expect(await journal.markApplied("torn", 1, receipt)).toMatchObject({ phase: "applied" });
  expect(await readdir(join(root, "effects", "torn"))).toEqual([
    "0000000001.json",
    "0000000002.json",
    "0000000003.json",
  ]);
  expect(await journal.get("torn")).toMatchObject({ phase: "applied", receipt });

  await journal.intend({ ...intent, effectId: "cut" }, { owner: "w", leaseMs: 1000 });
  await writeFile(join(root, "effects", "cut", "0000000001.json"), '{"effectId":"cu');
  expect(await journal.get("cut")).toBeUndefined();

  await writeFile(join(root, "effects", "torn", "0000000002.json"), "");
  await writeFile(join(root, "effects", "torn", "0000000004.json"), "\0\0");
  await writeFile(join(root, "effects", "torn", "0000000003.json"), "{");
  await expect(journal.get("torn")).rejects.toMatchObject({ code: "corrupt_artifact" });
  await journal.close();
});

// The journal keeps a staged file and a staged effect directory ready in tmp/ (made while
// the service call runs); closing it takes them back, so a closed journal leaves nothing.
it("leaves nothing staged once closed", async () => {
  const root = await mkdtemp(join(tmpdir(), "effects-spares-"));
  roots.push(root);
  const journal = new FsEffectJournal({ root });
  const scope = { kind: "session", app: "a", user: "u", session: "s" } as const;
  const receipt = { version: 1, sha256: "0".repeat(64), size: 1 };
  for (const effectId of ["s1", "s2", "s3"]) {
    const lease = { owner: "w", leaseMs: 60_000 };
    await journal.intend(
      { effectId, operation: "put", scope, name: "n", requestDigest: "0".repeat(64) },
      lease,
    );
    await journal.markApplied(effectId, 1, receipt);
    await journal.settle(effectId, 1, "committed");
  }
  expect((await readdir(join(root, "tmp"))).length).toBeGreaterThan(0);
  await journal.close();
  expect(await readdir(join(root, "tmp"))).toEqual([]);
  expect((await readdir(join(root, "effects"))).sort()).toEqual(["s1", "s2", "s3"]);
});
