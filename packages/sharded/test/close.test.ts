import { describe, expect, it } from "vitest";
import { ShardedArtifactService } from "../src/index.js";
import { appScope, bytes, deferred, ScriptedShards } from "./fixtures.js";

describe("close", () => {
  it("closes every worker, fails queued and later calls with closed, and is idempotent", async () => {
    const shards = new ScriptedShards("durable");
    const router = new ShardedArtifactService(shards, { maxConcurrentOpens: 1 });
    await router.put(appScope("a"), "x", bytes("a"));
    await router.put(appScope("b"), "x", bytes("b"));
    const gate = deferred();
    shards.openGate = gate.promise;
    const opening = router.put(appScope("c"), "x", bytes("c"));
    const queued = router.put(appScope("d"), "x", bytes("d"));

    const closing = router.close();
    await expect(queued).rejects.toMatchObject({ code: "closed" });
    await expect(opening).rejects.toMatchObject({ code: "closed" });
    expect(shards.workers.map((worker) => worker.closed)).toEqual([true, true]);
    // close() waits for the open under way, and closes that worker instead of keeping it.
    gate.resolve();
    await closing;
    expect(shards.workers[2]?.closed).toBe(true);
    expect(shards.opened).toEqual(["a", "b", "c"]);

    for (const call of [
      () => router.get(appScope("a"), "x"),
      () => router.listNames(appScope("a")),
      () => router.put(appScope("e"), "x", bytes("e")),
    ]) {
      await expect(call()).rejects.toMatchObject({ code: "closed" });
    }
    await router.close();
    expect(router.status()).toMatchObject({ closed: true, activeScopes: 0 });
  });
});
