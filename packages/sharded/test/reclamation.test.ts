import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ShardedArtifactService } from "../src/index.js";
import { appScope, bytes, deferred, ScriptedShards } from "./fixtures.js";

const IDLE_MS = 1_000;

// Only Date is faked, so idleness is set by the test and nothing waits on real time.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
});
afterEach(() => {
  vi.useRealTimers();
});

const later = (ms: number) => vi.setSystemTime(Date.now() + ms);

function router(shards: ScriptedShards) {
  return new ShardedArtifactService(shards, { maxActiveScopes: 1, idleScopeTimeoutMs: IDLE_MS });
}

describe("idle reclamation", () => {
  it("at capacity, reclaims the least recently used durable worker at once; its data reopens", async () => {
    const shards = new ScriptedShards("durable");
    const service = router(shards);
    await service.put(appScope("a"), "x", bytes("a"));
    // No idle timeout has passed: a new scope still gets in, by reclaiming "a".
    await service.put(appScope("b"), "x", bytes("b"));
    expect(shards.workers[0]?.closed).toBe(true);
    expect(service.status()).toMatchObject({ activeScopes: 1, evictions: 1, reclamation: true });
    // "a" comes back with its data and version high-water, evicting "b" in turn.
    await expect(service.get(appScope("a"), "x")).resolves.toMatchObject({ version: 1 });
    await expect(service.put(appScope("a"), "x", bytes("a2"))).resolves.toMatchObject({
      version: 2,
    });
    expect(shards.opened).toEqual(["a", "b", "a"]);
    expect(service.status().evictions).toBe(2);
  });

  it("picks the least recently used of several workers", async () => {
    const shards = new ScriptedShards("durable");
    const service = new ShardedArtifactService(shards, { maxActiveScopes: 3 });
    for (const id of ["a", "b", "c"]) await service.put(appScope(id), "x", bytes(id));
    await service.get(appScope("a"), "x");
    await service.get(appScope("c"), "x");
    await service.put(appScope("d"), "x", bytes("d"));
    expect(shards.workers.map((worker) => worker.closed)).toEqual([false, true, false, false]);
  });

  it("never reclaims a worker with an operation in flight", async () => {
    const shards = new ScriptedShards("durable");
    const service = router(shards);
    await service.put(appScope("a"), "x", bytes("a"));
    const gate = deferred();
    shards.hook = () => gate.promise;
    const running = service.put(appScope("a"), "x", bytes("a2"));
    later(IDLE_MS * 10);
    await expect(service.put(appScope("b"), "x", bytes("b"))).rejects.toMatchObject({
      code: "max_active_scopes_reached",
    });
    gate.resolve();
    await expect(running).resolves.toMatchObject({ version: 2 });
    expect(shards.workers[0]?.closed).toBe(false);
  });

  it("never reclaims a volatile worker: its ceiling is a lifetime bound", async () => {
    const shards = new ScriptedShards("volatile");
    const service = router(shards);
    await service.put(appScope("a"), "x", bytes("a"));
    later(IDLE_MS * 1_000);
    await expect(service.put(appScope("b"), "x", bytes("b"))).rejects.toMatchObject({
      code: "max_active_scopes_reached",
    });
    await expect(service.get(appScope("a"), "x")).resolves.toMatchObject({ version: 1 });
    expect(service.status()).toMatchObject({ evictions: 0, reclamation: false });
  });
});
