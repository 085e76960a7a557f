import { ArtifactError } from "@artifact-kit/core";
import { expect } from "vitest";
import type { ShardFactory } from "../shard.js";
import { law, type RouterContext, type RouterLaw } from "./context.js";
import { appScope, bytes, deferred, ScriptedShards } from "./scripted-shards.js";

// Reclamation: at maxActiveScopes a new scope takes the place of the least recently used
// durable worker with nothing in flight, at once; a volatile worker is never reclaimed (its
// data would be lost). Idleness is on the faked clock: the laws say how much time passes.

const IDLE_MS = 1_000;

async function reclaimsAtCapacity({ router, fakeClock }: RouterContext) {
  fakeClock(["Date"]);
  const shards = new ScriptedShards("durable");
  const service = router(shards, { maxActiveScopes: 1, idleScopeTimeoutMs: IDLE_MS });
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
}

async function picksTheLeastRecentlyUsed({ router }: RouterContext) {
  const shards = new ScriptedShards("durable");
  const service = router(shards, { maxActiveScopes: 3 });
  for (const id of ["a", "b", "c"]) await service.put(appScope(id), "x", bytes(id));
  await service.get(appScope("a"), "x");
  await service.get(appScope("c"), "x");
  await service.put(appScope("d"), "x", bytes("d"));
  expect(shards.workers.map((worker) => worker.closed)).toEqual([false, true, false, false]);
  // A failed call uses a worker as much as a good one.
  await expect(service.get(appScope("a"), "missing")).rejects.toMatchObject({ code: "not_found" });
  await service.put(appScope("e"), "x", bytes("e"));
  expect(shards.workers.map((worker) => worker.closed)).toEqual([false, true, true, false, false]);
}

async function neverReclaimsInFlight({ router, fakeClock, advance }: RouterContext) {
  fakeClock(["Date"]);
  const shards = new ScriptedShards("durable");
  const service = router(shards, { maxActiveScopes: 1, idleScopeTimeoutMs: IDLE_MS });
  await service.put(appScope("a"), "x", bytes("a"));
  const gate = deferred();
  shards.hook = () => gate.promise;
  const running = service.put(appScope("a"), "x", bytes("a2"));
  await advance(IDLE_MS * 10);
  // The refusal says why no worker could go: each has something in flight.
  await expect(service.put(appScope("b"), "x", bytes("b"))).rejects.toMatchObject({
    code: "max_active_scopes_reached",
    detail: { limit: "max_active_scopes", bound: 1 },
    message: expect.stringMatching(/^(?=.*maxActiveScopes)(?=.*\b1\b)(?=.*in flight)/),
  });
  gate.resolve();
  await expect(running).resolves.toMatchObject({ version: 2 });
  expect(shards.workers[0]?.closed).toBe(false);
  shards.hook = () => undefined;
  // Once the call is done, its worker is free to go.
  await expect(service.put(appScope("b"), "x", bytes("b"))).resolves.toMatchObject({ version: 1 });
}

async function neverReclaimsVolatile({ router, fakeClock, advance }: RouterContext) {
  fakeClock(["Date"]);
  const shards = new ScriptedShards("volatile");
  const service = router(shards, { maxActiveScopes: 1, idleScopeTimeoutMs: IDLE_MS });
  await service.put(appScope("a"), "x", bytes("a"));
  await advance(IDLE_MS * 1_000);
  await expect(service.put(appScope("b"), "x", bytes("b"))).rejects.toMatchObject({
    code: "max_active_scopes_reached",
  });
  await expect(service.get(appScope("a"), "x")).resolves.toMatchObject({ version: 1 });
  expect(service.status()).toMatchObject({ evictions: 0, reclamation: false });
}

/**
 * A call its worker refuses (a missing name, a transfer of one) has ended: its lease goes with
 * it, so the worker is reclaimable at once, as after a good call.
 */
async function refusedCallsLetGo({ router }: RouterContext) {
  const shards = new ScriptedShards("durable", "native");
  shards.hook = (operation) => {
    if (operation === "openUpload") throw new ArtifactError("quota_exceeded", "scripted: full");
  };
  const service = router(shards, { maxActiveScopes: 1 });
  const refusals = [
    () => service.get(appScope("a"), "missing"),
    () => service.head(appScope("b"), "x", { version: 2 }),
    () => service.openDownload(appScope("c"), "missing"),
    () => service.openDownload(appScope("d"), "missing", { range: { offset: 0, length: 1 } }),
    () => service.openUpload(appScope("e"), "x"),
  ];
  for (const [index, refused] of refusals.entries()) {
    await expect(refused(), `refusal ${index}`).rejects.toHaveProperty("code");
    // The next scope takes the refused call's worker's place.
    await expect(
      service.put(appScope(`after-${index}`), "x", bytes("x")),
      `a new scope after refusal ${index}`,
    ).resolves.toMatchObject({ version: 1 });
  }
}

/** ScriptedShards whose workers close only when `gate` lets them, counting the open ones. */
function slowToClose(shards: ScriptedShards, gate: Promise<void>) {
  const counts = { open: 0, most: 0, closing: deferred() };
  const factory: ShardFactory = {
    capabilities: shards.capabilities,
    open: async (shard) => {
      counts.open += 1;
      counts.most = Math.max(counts.most, counts.open);
      const worker = await shards.open(shard);
      const close = async () => {
        counts.closing.resolve();
        await gate;
        await worker.close();
        counts.open -= 1;
      };
      // The worker itself, but for a close that waits for the gate.
      return new Proxy(worker, {
        get: (target, key) => {
          if (key === "close") return close;
          const value: unknown = Reflect.get(target, key, target);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
    },
    scopes: () => shards.scopes(),
  };
  return { factory, counts };
}

/** maxActiveScopes bounds the workers open, those still closing too (files, connections). */
async function victimClosesFirst({ router }: RouterContext) {
  const gate = deferred();
  const { factory, counts } = slowToClose(new ScriptedShards("durable"), gate.promise);
  const service = router(factory, { maxActiveScopes: 1 });
  await service.put(appScope("a"), "x", bytes("a"));
  const next = service.put(appScope("b"), "x", bytes("b"));
  // Awaited below; a law that fails first must not leave it unhandled.
  next.catch(() => undefined);
  await counts.closing.promise;
  const mostWhileClosing = counts.most;
  // Opened before judging, so that a failing law still lets the router close its workers.
  gate.resolve();
  expect(mostWhileClosing, "a new worker opened while the reclaimed one was closing").toBe(1);
  await expect(next).resolves.toMatchObject({ version: 1 });
  expect(counts.most).toBe(1);
}

/** The shared worker serves every scope: never reclaimed, never counted against scopes. */
async function sharedIsNeverReclaimed({ router, fakeClock, advance }: RouterContext) {
  fakeClock();
  const shards = new ScriptedShards("durable");
  const service = router(shards, {
    strategy: "shared",
    maxActiveScopes: 1,
    idleScopeTimeoutMs: IDLE_MS,
  });
  for (const app of ["a", "b", "c"]) await service.put(appScope(app), "x", bytes(app));
  await advance(IDLE_MS * 3);
  expect(shards.workers.map((worker) => worker.closed)).toEqual([false]);
  expect(service.status()).toMatchObject({ activeScopes: 1, evictions: 0, reclamation: false });
  expect(service.capabilities().routing).toMatchObject({
    strategy: "shared",
    reclamation: "never",
  });
}

export const RECLAIM_LAWS: readonly RouterLaw[] = [
  law(
    "reclamation",
    "at capacity the least recently used durable worker goes at once; its data reopens",
    reclaimsAtCapacity,
  ),
  law(
    "reclamation",
    "the worker reclaimed is the least recently used of several",
    picksTheLeastRecentlyUsed,
  ),
  law(
    "reclamation",
    "a worker with an operation in flight is never reclaimed, however long",
    neverReclaimsInFlight,
  ),
  law(
    "reclamation",
    "a volatile worker is never reclaimed: its ceiling is a lifetime bound",
    neverReclaimsVolatile,
  ),
  law("reclamation", "the shared worker is never reclaimed or idle-closed", sharedIsNeverReclaimed),
  law(
    "reclamation",
    "a call or transfer its worker refuses lets the worker go: a new scope takes its place",
    refusedCallsLetGo,
  ),
  law(
    "reclamation",
    "at capacity the reclaimed worker has closed before the new one opens",
    victimClosesFirst,
  ),
];
