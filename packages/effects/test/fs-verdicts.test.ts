import { unlink } from "node:fs/promises";
import { isArtifactError, type Scope, sha256Hex } from "@artifact-kit/core";
import { artifactEffectHandler, FsEffectJournal, reconcile } from "@artifact-kit/effects";
import { FsArtifactService, fsArtifactPaths } from "@artifact-kit/fs";
import { afterEach, describe, expect, it } from "vitest";
import { tempDirs } from "./processes.js";

// A reconciler's verdict is final: once it has settled a put `not_applied` (no published
// version carries the effect id), nothing the store does later on its own may publish that
// put. The fs adapter leaves a keyed put that a crash cut short between binding its key and
// publishing it bound and unpublished; its repair used to publish such versions. The SIGKILL
// trials (crash.test.ts) reach this state by chance; here it is made by hand.

const scope: Scope = { kind: "session", app: "verdicts", user: "u", session: "s" };
const bytes = (text: string) => new TextEncoder().encode(text);
const RETRY = { attempts: 3, backoffMs: 100, maxBackoffMs: 1000 };
const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

async function listed(service: FsArtifactService, name: string): Promise<number[]> {
  try {
    return (await service.listVersions(scope, name)).items.map((meta) => meta.version);
  } catch (error) {
    if (isArtifactError(error, "not_found")) return [];
    throw error;
  }
}

describe("fs: a reconciler's verdict stands after the store's own recovery", () => {
  it("a put cut short after binding its key: not_applied, and repair does not publish it", async () => {
    const dirs = await tempDirs("verdicts");
    let now = Date.now();
    const journal = new FsEffectJournal({ root: dirs.journal, clock: () => now });
    const service = await FsArtifactService.open({ root: dirs.store });
    cleanups.push(async () => {
      await service.close();
      await journal.close();
      await dirs.cleanup();
    });
    const intent = await journal.intend(
      {
        effectId: "cut-short",
        operation: "put",
        scope,
        name: "r.txt",
        requestDigest: sha256Hex("the request"),
      },
      { owner: "writer", leaseMs: 1000 },
    );
    // What the journaled put's service call leaves when its process dies between linking the
    // key's binding and linking the version's metadata.
    const cut = await service.put(scope, "r.txt", bytes("never told"), {
      idempotencyKey: intent.effectId,
    });
    await unlink(fsArtifactPaths(service.root, scope, "r.txt", cut.version).metadata);

    now += 1000;
    const report = await reconcile(journal, artifactEffectHandler(service), {
      owner: "reconciler",
      limit: 10,
      timeBudgetMs: 5000,
      leaseMs: 1000,
      retry: RETRY,
    });
    expect(report.settled).toEqual([{ effectId: "cut-short", outcome: "not_applied" }]);

    expect(await service.repair({ minAgeMs: 0 })).toMatchObject({ awaitingRetry: 1, corrupt: 0 });
    expect(await listed(service, "r.txt")).toEqual([]);
    const next = await service.put(scope, "r.txt", bytes("later"));
    expect(next.version).toBe(cut.version + 1);
    await service.repair({ minAgeMs: 0 });
    expect(await listed(service, "r.txt")).toEqual([next.version]);
    expect((await journal.get("cut-short"))?.phase).toBe("not_applied");
  });
});
