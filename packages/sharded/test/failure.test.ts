import { describe, expect, it } from "vitest";
import { ShardedArtifactService } from "../src/index.js";
import { appScope, bytes, ScriptedShards } from "./fixtures.js";

/** Makes the next operation of `app`'s worker throw a plain (non-artifact) error. */
function breakOnce(shards: ScriptedShards, app: string): void {
  let broken = false;
  shards.hook = (_operation, shard) => {
    if (shard.scope?.app === app && !broken) {
      broken = true;
      throw new Error("disk on fire");
    }
  };
}

describe("worker failure", () => {
  it("removes a failed worker and opens a new one on the next call; durable data reloads", async () => {
    const shards = new ScriptedShards("durable");
    const router = new ShardedArtifactService(shards);
    await router.put(appScope("a"), "x", bytes("a"));
    await router.put(appScope("b"), "x", bytes("b"));
    breakOnce(shards, "a");
    await expect(router.get(appScope("a"), "x")).rejects.toMatchObject({
      code: "unavailable",
      cause: expect.objectContaining({ message: "disk on fire" }),
    });
    expect(router.status()).toMatchObject({ activeScopes: 1, failures: 1 });
    expect(shards.workers[0]?.closed).toBe(true);
    await expect(router.get(appScope("a"), "x")).resolves.toMatchObject({ version: 1 });
    // Only the failed scope was reopened.
    expect(shards.opened).toEqual(["a", "b", "a"]);
  });

  it("recreates a failed volatile worker empty: its data is gone", async () => {
    const shards = new ScriptedShards("volatile");
    const router = new ShardedArtifactService(shards);
    await router.put(appScope("a"), "x", bytes("a"));
    breakOnce(shards, "a");
    await expect(router.head(appScope("a"), "x")).rejects.toMatchObject({ code: "unavailable" });
    await expect(router.head(appScope("a"), "x")).rejects.toMatchObject({ code: "not_found" });
  });

  it("keeps a worker that answered with an ordinary contract error", async () => {
    const shards = new ScriptedShards("volatile");
    const router = new ShardedArtifactService(shards);
    await expect(router.get(appScope("a"), "missing")).rejects.toMatchObject({
      code: "not_found",
    });
    await router.put(appScope("a"), "x", bytes("a"));
    expect(shards.opened).toEqual(["a"]);
    expect(router.status().failures).toBe(0);
  });

  it("fails the call without keeping a worker when the factory cannot open one", async () => {
    const shards = new ScriptedShards("volatile");
    let attempts = 0;
    const router = new ShardedArtifactService({
      capabilities: shards.capabilities,
      open: (shard) => {
        attempts += 1;
        if (attempts === 1) throw new Error("no space left");
        return shards.open(shard);
      },
    });
    await expect(router.put(appScope("a"), "x", bytes("a"))).rejects.toMatchObject({
      code: "unavailable",
    });
    expect(router.status().activeScopes).toBe(0);
    await expect(router.put(appScope("a"), "x", bytes("a"))).resolves.toMatchObject({
      version: 1,
    });
  });

  it("refuses a worker whose capabilities differ from the declared ones, and closes it", async () => {
    const declared = new ScriptedShards("durable");
    const actual = new ScriptedShards("volatile");
    const router = new ShardedArtifactService({
      capabilities: declared.capabilities,
      open: (shard) => actual.open(shard),
    });
    await expect(router.put(appScope("a"), "x", bytes("a"))).rejects.toMatchObject({
      code: "unavailable",
    });
    expect(actual.workers[0]?.closed).toBe(true);
    expect(router.status().activeScopes).toBe(0);
  });
});
