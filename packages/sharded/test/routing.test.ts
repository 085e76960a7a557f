import { isArtifactError } from "@artifact-kit/core";
import { describe, expect, it } from "vitest";
import { memoryShards, ShardedArtifactService, shardRoot } from "../src/index.js";
import { appScope, bytes, deferred, ScriptedShards } from "./fixtures.js";

describe("routing", () => {
  it("gives each exact scope its own worker and every scope the one shared worker", async () => {
    const exact = new ScriptedShards("volatile");
    const shared = new ScriptedShards("volatile");
    const routers = [
      new ShardedArtifactService(exact),
      new ShardedArtifactService(shared, { strategy: "shared" }),
    ];
    for (const router of routers) {
      for (const app of ["a", "b", "a"]) await router.put(appScope(app), "x", bytes(app));
      expect(new TextDecoder().decode((await router.get(appScope("b"), "x")).data)).toBe("b");
    }
    expect(exact.opened).toEqual(["a", "b"]);
    expect(shared.opened).toEqual(["shared"]);
  });

  it("validates every call before routing, so a bad input never opens a worker", async () => {
    const shards = new ScriptedShards("volatile");
    const router = new ShardedArtifactService(shards);
    const bad: [string, () => Promise<unknown>][] = [
      ["scope.app", () => router.put({ kind: "app", app: "" }, "x", bytes("x"))],
      ["name", () => router.get(appScope("a"), "../x")],
      ["options.color", () => router.head(appScope("a"), "x", { color: 1 } as never)],
      ["timeoutMs", () => router.list(appScope("a"), { timeoutMs: 0 })],
      ["selector", () => router.delete(appScope("a"), "x", "some" as never)],
    ];
    for (const [field, call] of bad) {
      const error = await call().catch((e: unknown) => e);
      expect(isArtifactError(error, "invalid_argument"), field).toBe(true);
      expect((error as { detail: { field: string } }).detail.field).toBe(field);
    }
    expect(shards.opened).toEqual([]);
  });

  it("never holds one scope's calls behind another scope's blocked worker", async () => {
    const shards = new ScriptedShards("volatile");
    const router = new ShardedArtifactService(shards);
    await router.put(appScope("slow"), "x", bytes("1"));
    const gate = deferred();
    shards.hook = (_operation, shard) => (shard.scope?.app === "slow" ? gate.promise : undefined);
    const blocked = router.put(appScope("slow"), "x", bytes("2"));
    // A cold scope and a hot one both finish while "slow" is still blocked.
    await router.put(appScope("fast"), "x", bytes("1"));
    await expect(router.get(appScope("fast"), "x")).resolves.toMatchObject({ version: 1 });
    gate.resolve();
    await expect(blocked).resolves.toMatchObject({ version: 2 });
  });

  it("hands calls on one scope to its worker in the order they were made", async () => {
    const router = new ShardedArtifactService(memoryShards());
    await router.put(appScope("a"), "x", bytes("0"));
    const puts = ["1", "2", "3"].map((text) => router.put(appScope("a"), "x", bytes(text)));
    expect((await Promise.all(puts)).map((meta) => meta.version)).toEqual([2, 3, 4]);
  });

  it("passes the worker what is left of the request's one deadline", async () => {
    const shards = new ScriptedShards("volatile");
    const router = new ShardedArtifactService(shards);
    const seen: unknown[] = [];
    shards.hook = (_operation, _shard, args) => {
      seen.push(args.at(-1));
    };
    const { signal } = new AbortController();
    await router.put(appScope("a"), "x", bytes("1"), { timeoutMs: 60_000, signal });
    expect(seen).toEqual([
      expect.objectContaining({
        signal,
        timeoutMs: expect.any(Number),
        mimeType: expect.any(String),
      }),
    ]);
    const { timeoutMs } = seen[0] as { timeoutMs: number };
    expect(timeoutMs >= 1 && timeoutMs <= 60_000).toBe(true);
  });

  it("reports quotas per shard for exact scopes, as the adapter does when shared", () => {
    const shards = memoryShards({ maxScopeBytes: 1024 });
    const exact = new ShardedArtifactService(shards, { maxActiveScopes: 7, maxRouterQueue: 9 });
    const shared = new ShardedArtifactService(shards, { strategy: "shared", maxRouterQueue: 9 });
    expect(exact.capabilities().quotas).toMatchObject({
      appliesTo: "per_shard",
      bounds: { maxScopeBytes: 1024, maxActiveScopes: 7, maxRouterQueue: 9 },
    });
    expect(shared.capabilities().quotas.appliesTo).toBe("global");
    expect(shared.capabilities().quotas.bounds).not.toHaveProperty("maxActiveScopes");
    expect(Object.isFrozen(exact.capabilities())).toBe(true);
  });

  it("rejects unknown and out-of-range router options", () => {
    const shards = memoryShards();
    const cases: [string, object][] = [
      ["routerOptions.shards", { shards: 4 }],
      ["strategy", { strategy: "hash" }],
      ["maxActiveScopes", { maxActiveScopes: 0 }],
      ["maxRouterQueue", { maxRouterQueue: 1.5 }],
      ["idleScopeTimeoutMs", { idleScopeTimeoutMs: 0 }],
      ["idleScopeTimeoutMs", { idleScopeTimeoutMs: 86_400_001 }],
    ];
    for (const [field, options] of cases) {
      expect(() => new ShardedArtifactService(shards, options)).toThrowError(
        expect.objectContaining({ code: "invalid_argument", detail: { field } }),
      );
    }
  });

  it("derives a deterministic, path-safe sub-root from each scope's SHA-256", async () => {
    const shards = new ScriptedShards("durable");
    const scopes = [
      { kind: "session", app: "a", user: "../u", session: "s/1" },
      appScope("a"),
    ] as const;
    for (const router of [new ShardedArtifactService(shards), new ShardedArtifactService(shards)]) {
      for (const scope of scopes) await router.put(scope, "x", bytes(""));
    }
    const roots = shards.openedShards.map((shard) => shardRoot("/data", shard));
    expect(roots).toHaveLength(4);
    for (const root of roots) expect(root).toMatch(/^\/data\/shards\/[0-9a-f]{64}$/);
    expect(roots[0]).not.toBe(roots[1]);
    // A second router (a restart) derives the same sub-roots.
    expect(roots.slice(2)).toEqual(roots.slice(0, 2));
  });
});
