import { afterEach, describe, expect, it, vi } from "vitest";
import { ShardedArtifactService } from "../src/index.js";
import { appScope, bytes, deferred, ScriptedShards } from "./fixtures.js";

/** A router whose worker opens all wait for `gate`: cold routes queue up behind it. */
function blockedOpens(options: { maxRouterQueue: number }) {
  const shards = new ScriptedShards("volatile");
  const gate = deferred();
  shards.openGate = gate.promise;
  const router = new ShardedArtifactService(shards, { maxConcurrentOpens: 1, ...options });
  return { shards, gate, router };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("admission", () => {
  it("refuses a new scope at maxActiveScopes with max_active_scopes_reached", async () => {
    const shards = new ScriptedShards("volatile");
    const router = new ShardedArtifactService(shards, { maxActiveScopes: 2 });
    await router.put(appScope("a"), "x", bytes("a"));
    await router.put(appScope("b"), "x", bytes("b"));
    await expect(router.put(appScope("c"), "x", bytes("c"))).rejects.toMatchObject({
      code: "max_active_scopes_reached",
      detail: { limit: "max_active_scopes", bound: 2 },
    });
    // Admitted scopes carry on; the refused one opened nothing.
    await expect(router.get(appScope("a"), "x")).resolves.toMatchObject({ version: 1 });
    expect(shards.opened).toEqual(["a", "b"]);
    expect(router.status()).toMatchObject({ activeScopes: 2, reclamation: false, evictions: 0 });
  });

  it("refuses cold routes beyond maxRouterQueue with overloaded, and serves them once it drains", async () => {
    const { shards, gate, router } = blockedOpens({ maxRouterQueue: 2 });
    const first = router.put(appScope("a"), "x", bytes("a")); // opening
    const second = router.put(appScope("b"), "x", bytes("b")); // waiting
    await expect(router.put(appScope("c"), "x", bytes("c"))).rejects.toMatchObject({
      code: "overloaded",
      detail: { limit: "max_router_queue", bound: 2 },
    });
    gate.resolve();
    await expect(Promise.all([first, second])).resolves.toHaveLength(2);
    await expect(router.put(appScope("c"), "x", bytes("c"))).resolves.toMatchObject({ version: 1 });
    expect(shards.opened).toEqual(["a", "b", "c"]);
  });

  it("releases the place of a caller that aborts while queued and never opens its worker", async () => {
    const { shards, gate, router } = blockedOpens({ maxRouterQueue: 2 });
    const first = router.put(appScope("a"), "x", bytes("a"));
    const controller = new AbortController();
    const abandoned = router.put(appScope("gone"), "x", bytes("g"), { signal: controller.signal });
    expect(router.status().queuedRequests).toBe(1);
    controller.abort();
    await expect(abandoned).rejects.toMatchObject({ code: "aborted" });
    expect(router.status().queuedRequests).toBe(0);
    // Its place is free again: this one queues instead of being refused as overloaded.
    const next = router.put(appScope("b"), "x", bytes("b"));
    gate.resolve();
    await Promise.all([first, next]);
    expect(shards.opened).toEqual(["a", "b"]);
    expect(router.status().activeScopes).toBe(2);
  });

  it("fails a caller whose deadline passes while queued with timeout, and never opens its worker", async () => {
    const { shards, gate, router } = blockedOpens({ maxRouterQueue: 2 });
    const first = router.put(appScope("a"), "x", bytes("a"));
    const late = router.put(appScope("late"), "x", bytes("l"), { timeoutMs: 1 });
    await expect(late).rejects.toMatchObject({ code: "timeout" });
    expect(router.status().queuedRequests).toBe(0);
    gate.resolve();
    await first;
    expect(shards.opened).toEqual(["a"]);
  });

  it("does not open a worker for a request that went stale before its turn came", async () => {
    // Only Date is faked: the deadline passes, but its abort timer has not fired yet,
    // so the request is still queued when the gate opens.
    vi.useFakeTimers({ toFake: ["Date"] });
    const { shards, gate, router } = blockedOpens({ maxRouterQueue: 2 });
    const first = router.put(appScope("a"), "x", bytes("a"));
    const stale = router.put(appScope("stale"), "x", bytes("s"), { timeoutMs: 60_000 });
    vi.setSystemTime(Date.now() + 120_000);
    gate.resolve();
    await expect(stale).rejects.toMatchObject({ code: "timeout" });
    await first;
    expect(shards.opened).toEqual(["a"]);
  });

  it("opens a scope once for concurrent cold calls, in one bounded queue", async () => {
    const { shards, gate, router } = blockedOpens({ maxRouterQueue: 3 });
    const calls = ["1", "2", "3"].map((text) => router.put(appScope("a"), "x", bytes(text)));
    gate.resolve();
    const versions = (await Promise.all(calls)).map((meta) => meta.version).sort();
    expect(versions).toEqual([1, 2, 3]);
    expect(shards.opened).toEqual(["a"]);
  });
});
