import { isArtifactError, type Scope } from "@artifact-kit/core";
import { expect } from "vitest";
import { memoryShards } from "../memory.js";
import { law, type RouterContext, type RouterLaw } from "./context.js";
import { appScope, bytes, deferred, ScriptedShards } from "./scripted-shards.js";

// Routing: which worker serves a call, what the router checks before any worker is opened,
// what it passes on, and what it declares.

async function exactAndSharedWorkers({ router }: RouterContext) {
  const exact = new ScriptedShards("volatile");
  const shared = new ScriptedShards("volatile");
  const routers = [router(exact), router(shared, { strategy: "shared" })];
  for (const service of routers) {
    for (const app of ["a", "b", "a"]) await service.put(appScope(app), "x", bytes(app));
    expect(new TextDecoder().decode((await service.get(appScope("b"), "x")).data)).toBe("b");
  }
  expect(exact.opened).toEqual(["a", "b"]);
  expect(shared.opened).toEqual(["shared"]);
  expect(exact.openedShards.map((shard) => shard.scope)).toEqual([appScope("a"), appScope("b")]);
  expect(shared.openedShards).toEqual([{ scope: undefined, id: "shared" }]);
}

/** Scopes equal as values are one scope; any field that differs makes another. */
async function scopesByValue({ router }: RouterContext) {
  const shards = new ScriptedShards("volatile");
  const service = router(shards);
  const scopes: Scope[] = [
    { kind: "app", app: "a" },
    { kind: "user", app: "a", user: "u" },
    { kind: "user", app: "a", user: "U" },
    { kind: "session", app: "a", user: "u", session: "s" },
    { kind: "session", app: "a", user: "u", session: "s2" },
    { kind: "user", app: "a/u", user: "x" },
    { kind: "user", app: "a", user: "u/x" },
  ];
  for (const [i, scope] of scopes.entries()) {
    await service.put({ ...scope }, "x", bytes(String(i)));
  }
  for (const [i, scope] of scopes.entries()) {
    expect(new TextDecoder().decode((await service.get({ ...scope }, "x")).data)).toBe(String(i));
  }
  expect(shards.openedShards).toHaveLength(scopes.length);
  const ids = new Set(shards.openedShards.map((shard) => shard.id));
  expect(ids.size, "a shard id per scope").toBe(scopes.length);
  for (const id of ids) expect(id).toMatch(/^[0-9a-f]{64}$/);
}

/** The same scope gets the same shard id from every router (a restart finds its data). */
async function shardIdsAreStable({ router }: RouterContext) {
  const shards = new ScriptedShards("durable");
  const scopes = [
    { kind: "session", app: "a", user: "../u", session: "s/1" },
    appScope("a"),
  ] as const;
  for (const service of [router(shards), router(shards)]) {
    for (const scope of scopes) await service.put(scope, "x", bytes(""));
  }
  const ids = shards.openedShards.map((shard) => shard.id);
  expect(ids).toHaveLength(4);
  expect(ids[0]).not.toBe(ids[1]);
  expect(ids.slice(2)).toEqual(ids.slice(0, 2));
}

async function validatesBeforeRouting({ router }: RouterContext) {
  const shards = new ScriptedShards("volatile");
  const service = router(shards);
  const bad: [string, () => Promise<unknown>][] = [
    ["scope.app", () => service.put({ kind: "app", app: "" }, "x", bytes("x"))],
    ["name", () => service.get(appScope("a"), "../x")],
    ["options.color", () => service.head(appScope("a"), "x", { color: 1 } as never)],
    ["timeoutMs", () => service.list(appScope("a"), { timeoutMs: 0 })],
    ["selector", () => service.delete(appScope("a"), "x", "some" as never)],
    ["limit", () => service.listNames(appScope("a"), { limit: 0 })],
    ["limit", () => service.listVersions(appScope("a"), "x", { limit: 1.5 })],
    ["version", () => service.get(appScope("a"), "x", { version: 0 })],
  ];
  for (const [field, call] of bad) {
    const error = await call().catch((e: unknown) => e);
    expect(isArtifactError(error, "invalid_argument"), field).toBe(true);
    expect((error as { detail: { field: string } }).detail.field).toBe(field);
  }
  expect(shards.opened).toEqual([]);
  expect(service.status()).toMatchObject({ activeScopes: 0, queuedRequests: 0 });
}

async function unservedScopeKind({ router }: RouterContext) {
  const factory = memoryShards();
  const appsOnly = {
    open: factory.open,
    capabilities: { ...factory.capabilities, scopes: ["app" as const] },
  };
  let opened = 0;
  const service = router({
    ...appsOnly,
    open: (shard) => {
      opened += 1;
      return appsOnly.open(shard);
    },
  });
  await expect(
    service.put({ kind: "user", app: "a", user: "u" }, "x", bytes("x")),
  ).rejects.toMatchObject({
    code: "invalid_argument",
    detail: { field: "scope.kind" },
    message: expect.stringContaining("user"),
  });
  expect(opened).toBe(0);
}

async function scopesDoNotWaitOnEachOther({ router }: RouterContext) {
  const shards = new ScriptedShards("volatile");
  const service = router(shards);
  await service.put(appScope("slow"), "x", bytes("1"));
  const gate = deferred();
  shards.hook = (_operation, shard) => (shard.scope?.app === "slow" ? gate.promise : undefined);
  const blocked = service.put(appScope("slow"), "x", bytes("2"));
  // A cold scope and a hot one both finish while "slow" is still blocked.
  await service.put(appScope("fast"), "x", bytes("1"));
  await expect(service.get(appScope("fast"), "x")).resolves.toMatchObject({ version: 1 });
  gate.resolve();
  await expect(blocked).resolves.toMatchObject({ version: 2 });
}

async function callsInOrder({ router }: RouterContext) {
  const service = router(memoryShards());
  await service.put(appScope("a"), "x", bytes("0"));
  const puts = ["1", "2", "3"].map((text) => service.put(appScope("a"), "x", bytes(text)));
  expect((await Promise.all(puts)).map((meta) => meta.version)).toEqual([2, 3, 4]);
}

async function putCopiesTheCallersBytes({ router }: RouterContext) {
  const shards = new ScriptedShards("volatile");
  const gate = deferred();
  shards.openGate = gate.promise;
  const service = router(shards);
  const data = bytes("original");
  const put = service.put(appScope("a"), "x", data);
  data.fill(0);
  gate.resolve();
  await put;
  expect(new TextDecoder().decode((await service.get(appScope("a"), "x")).data)).toBe("original");
}

async function passesTheDeadline({ router }: RouterContext) {
  const shards = new ScriptedShards("volatile");
  const service = router(shards);
  const seen: unknown[] = [];
  shards.hook = (_operation, _shard, args) => {
    seen.push(args.at(-1));
  };
  const { signal } = new AbortController();
  await service.put(appScope("a"), "x", bytes("1"), { timeoutMs: 60_000, signal });
  expect(seen).toEqual([
    expect.objectContaining({
      signal,
      timeoutMs: expect.any(Number),
      mimeType: expect.any(String),
    }),
  ]);
  const { timeoutMs } = seen[0] as { timeoutMs: number };
  expect(timeoutMs >= 1 && timeoutMs <= 60_000).toBe(true);
}

async function declaresItsQuotas({ router }: RouterContext) {
  const shards = memoryShards({ maxScopeBytes: 1024 });
  const exact = router(shards, { maxActiveScopes: 7, maxRouterQueue: 9 });
  const shared = router(shards, { strategy: "shared", maxRouterQueue: 9 });
  expect(exact.capabilities().quotas).toMatchObject({
    appliesTo: "per_shard",
    bounds: { maxScopeBytes: 1024, maxActiveScopes: 7, maxRouterQueue: 9 },
  });
  expect(shared.capabilities().quotas.appliesTo).toBe("global");
  expect(shared.capabilities().quotas.bounds).not.toHaveProperty("maxActiveScopes");
  expect(shared.capabilities().quotas.bounds).toMatchObject({ maxRouterQueue: 9 });
  expect(Object.isFrozen(exact.capabilities())).toBe(true);
  expect(exact.capabilities().durability).toBe(shards.capabilities.durability);
  expect(exact.capabilities().pagination).toEqual(shards.capabilities.pagination);
}

async function declaresItsRouting({ router }: RouterContext) {
  const durable = router(new ScriptedShards("durable"), {
    idleScopeTimeoutMs: 5_000,
    transferIdleTimeoutMs: 7_000,
    maxActiveScopes: 11,
    maxRouterQueue: 13,
  });
  expect(durable.capabilities().routing).toEqual({
    strategy: "exact_scope",
    reclamation: "lru",
    idleScopeTimeoutMs: 5_000,
    transferIdleTimeoutMs: 7_000,
  });
  expect(durable.status()).toMatchObject({
    strategy: "exact_scope",
    maxActiveScopes: 11,
    maxRouterQueue: 13,
    idleScopeTimeoutMs: 5_000,
    reclamation: true,
    closed: false,
    activeScopes: 0,
    openingScopes: 0,
    queuedRequests: 0,
    evictions: 0,
    failures: 0,
  });
  const volatile = router(new ScriptedShards("volatile"));
  expect(volatile.capabilities().routing).toEqual({
    strategy: "exact_scope",
    reclamation: "never",
    idleScopeTimeoutMs: 60_000,
    transferIdleTimeoutMs: 60_000,
  });
  expect(volatile.status()).toMatchObject({ maxActiveScopes: 1_000, maxRouterQueue: 1_000 });
}

async function rejectsBadOptions({ router }: RouterContext) {
  const shards = memoryShards();
  const cases: [string, object][] = [
    ["routerOptions.shards", { shards: 4 }],
    ["strategy", { strategy: "hash" }],
    ["maxActiveScopes", { maxActiveScopes: 0 }],
    ["maxRouterQueue", { maxRouterQueue: 1.5 }],
    ["maxConcurrentOpens", { maxConcurrentOpens: -1 }],
    ["idleScopeTimeoutMs", { idleScopeTimeoutMs: 0 }],
    ["idleScopeTimeoutMs", { idleScopeTimeoutMs: 86_400_001 }],
    ["transferIdleTimeoutMs", { transferIdleTimeoutMs: 86_400_001 }],
    ["transferIdleTimeoutMs", { transferIdleTimeoutMs: "5" }],
  ];
  for (const [field, options] of cases) {
    // Each refusal names its field and says what is wrong with it.
    expect(() => router(shards, options)).toThrowError(
      expect.objectContaining({
        code: "invalid_argument",
        detail: { field },
        message: expect.stringMatching(new RegExp(`^${field}: \\S`)),
      }),
    );
  }
  // The largest timeouts are allowed.
  const longest = router(shards, {
    idleScopeTimeoutMs: 86_400_000,
    transferIdleTimeoutMs: 86_400_000,
  });
  expect(longest.capabilities().routing?.idleScopeTimeoutMs).toBe(86_400_000);
}

export const ROUTING_LAWS: readonly RouterLaw[] = [
  law(
    "routing",
    "each exact scope gets its own worker; every scope the one shared worker",
    exactAndSharedWorkers,
  ),
  law(
    "routing",
    "scopes are told apart by every field, never by reference, each with its own shard id",
    scopesByValue,
  ),
  law("routing", "a scope gets the same shard id from every router", shardIdsAreStable),
  law(
    "routing",
    "every call is validated before routing: a bad input opens no worker",
    validatesBeforeRouting,
  ),
  law(
    "routing",
    "a scope kind the workers do not serve is invalid_argument and opens nothing",
    unservedScopeKind,
  ),
  law(
    "routing",
    "no scope's calls wait behind another scope's blocked worker",
    scopesDoNotWaitOnEachOther,
  ),
  law("routing", "calls on one scope reach its worker in the order they were made", callsInOrder),
  law(
    "routing",
    "put stores the bytes as passed, even if the caller changes them while it waits",
    putCopiesTheCallersBytes,
  ),
  law("routing", "the worker gets what is left of the request's one deadline", passesTheDeadline),
  law(
    "capabilities",
    "quotas per shard under exact scope, the workers' own when shared",
    declaresItsQuotas,
  ),
  law(
    "capabilities",
    "routing, reclamation and timeouts are declared and reported in status()",
    declaresItsRouting,
  ),
  law("options", "unknown and out-of-range router options are invalid_argument", rejectsBadOptions),
];
