import { expect } from "vitest";
import { law, type RouterContext, type RouterLaw } from "./context.js";
import { appScope, bytes, deferred, ScriptedShards } from "./scripted-shards.js";

// The router's timers at their edges, on the faked clock: one millisecond before the edge
// nothing happens, at it (or by the sweep after it) it does. Rules: a durable worker idle for
// idleScopeTimeoutMs is closed by the next sweep (sweeps every idleScopeTimeoutMs); a transfer
// that goes transferIdleTimeoutMs without a call is ended, counting only between calls.

const T = 1_000;

async function idleWorkerAtItsEdge({ router, fakeClock, advance }: RouterContext) {
  fakeClock();
  const shards = new ScriptedShards("durable");
  const service = router(shards, { idleScopeTimeoutMs: T });
  // Last used half-way to the first sweep: the sweep at T finds it idle for T/2 only.
  await advance(T / 2);
  await service.put(appScope("a"), "x", bytes("a"));
  await advance(T - 1);
  expect(shards.workers[0]?.closed, "closed before it was idle for T").toBe(false);
  expect(service.status()).toMatchObject({ activeScopes: 1, evictions: 0 });
  await advance(T / 2 + 1);
  expect(shards.workers[0]?.closed, "still open once idle for 1.5 T").toBe(true);
  expect(service.status()).toMatchObject({ activeScopes: 0, evictions: 1 });
  await expect(service.get(appScope("a"), "x")).resolves.toMatchObject({ version: 1 });
}

/** A worker used exactly T before a sweep is idle for T: that sweep closes it. */
async function idleForExactlyTheTimeout({ router, fakeClock, advance }: RouterContext) {
  fakeClock();
  const shards = new ScriptedShards("durable");
  const service = router(shards, { idleScopeTimeoutMs: T });
  await service.put(appScope("a"), "x", bytes("a"));
  await advance(T - 1);
  expect(shards.workers[0]?.closed).toBe(false);
  await advance(1);
  expect(shards.workers[0]?.closed, "idle for exactly T at the sweep").toBe(true);
}

/** Every call, read or write, good or refused, restarts a worker's idle time. */
async function everyCallKeepsAWorkerAlive({ router, fakeClock, advance }: RouterContext) {
  fakeClock();
  const shards = new ScriptedShards("durable");
  const service = router(shards, { idleScopeTimeoutMs: T });
  await service.put(appScope("a"), "x", bytes("a"));
  const calls = [
    () => service.get(appScope("a"), "x"),
    () => service.head(appScope("a"), "missing").catch(() => undefined),
    () => service.listNames(appScope("a")),
    () => service.put(appScope("a"), "y", bytes("y")),
  ];
  for (const call of calls) {
    await advance(T / 2);
    await call();
  }
  await advance(T / 2);
  expect(shards.workers[0]?.closed, "used T/2 ago at every sweep").toBe(false);
  expect(shards.opened).toEqual(["a"]);
}

async function volatileNeverIdleClosed({ router, fakeClock, advance }: RouterContext) {
  fakeClock();
  const shards = new ScriptedShards("volatile");
  const service = router(shards, { idleScopeTimeoutMs: 20 });
  await service.put(appScope("a"), "x", bytes("a"));
  await advance(80);
  expect(shards.workers[0]?.closed).toBe(false);
  await expect(service.get(appScope("a"), "x")).resolves.toMatchObject({ version: 1 });
}

/** A worker busy for longer than the timeout is not closed under its call. */
async function busyWorkerOutlivesTheTimeout({ router, fakeClock, advance }: RouterContext) {
  fakeClock();
  const shards = new ScriptedShards("durable");
  const service = router(shards, { idleScopeTimeoutMs: T });
  await service.put(appScope("a"), "x", bytes("a"));
  const gate = deferred();
  shards.hook = () => gate.promise;
  const slow = service.get(appScope("a"), "x");
  // Its call ends between two sweeps, so that the next finds it idle for less than T since the
  // call ended (and for more since it started).
  await advance(3 * T + T / 2);
  expect(shards.workers[0]?.closed).toBe(false);
  gate.resolve();
  await expect(slow).resolves.toMatchObject({ version: 1 });
  await advance(T - 1);
  expect(shards.workers[0]?.closed, "idle since its call ended for less than T").toBe(false);
  await advance(T + 1);
  expect(shards.workers[0]?.closed).toBe(true);
}

async function transferIdleAtItsEdge({ router, fakeClock, advance }: RouterContext) {
  fakeClock(["Date", "setTimeout", "clearTimeout"]);
  const shards = new ScriptedShards("durable", "native");
  const service = router(shards, { transferIdleTimeoutMs: T });
  const upload = await service.openUpload(appScope("a"), "x");
  for (let round = 0; round < 3; round++) {
    await advance(T - 1);
    await upload.write(bytes(`chunk ${round}`));
  }
  await advance(T);
  // The refusal says why: the option whose bound the upload reached.
  await expect(upload.write(bytes("late"))).rejects.toMatchObject({
    code: "timeout",
    detail: { limit: "transfer_idle_timeout_ms", bound: T },
    message: expect.stringContaining("transferIdleTimeoutMs"),
  });
  await expect(upload.finish()).rejects.toMatchObject({ code: "timeout" });
  await expect(service.head(appScope("a"), "x")).rejects.toMatchObject({ code: "not_found" });
}

async function downloadIdleAtItsEdge({ router, fakeClock, advance }: RouterContext) {
  fakeClock(["Date", "setTimeout", "clearTimeout"]);
  const shards = new ScriptedShards("durable", "native");
  const service = router(shards, { transferIdleTimeoutMs: T, maxActiveScopes: 1 });
  await service.put(appScope("a"), "x", new Uint8Array(3 * 1024 * 1024));
  const download = await service.openDownload(appScope("a"), "x");
  await advance(T - 1);
  expect(await download.read()).toBeInstanceOf(Uint8Array);
  await advance(T);
  await expect(download.read()).rejects.toMatchObject({
    code: "timeout",
    detail: { limit: "transfer_idle_timeout_ms", bound: T },
  });
  // The ended download let its worker go: another scope can take its place.
  await expect(service.put(appScope("b"), "x", bytes("b"))).resolves.toMatchObject({ version: 1 });
}

async function keptWhileCalledOften({ router, fakeClock, advance }: RouterContext) {
  fakeClock();
  const shards = new ScriptedShards("durable", "native");
  // Calls T/4 apart for 1.5 T in all: longer than the idle time in total, never idle for it.
  const service = router(shards, { transferIdleTimeoutMs: T });
  const sink = await service.openUpload(appScope("a"), "x");
  for (let i = 0; i < 6; i++) {
    await sink.write(bytes("."));
    await advance(T / 4);
  }
  await expect(sink.finish()).resolves.toMatchObject({ size: 6 });
}

async function abandonedTransferFreesItsWorker({ router, fakeClock, advance }: RouterContext) {
  fakeClock();
  const shards = new ScriptedShards("durable", "native");
  const service = router(shards, { maxActiveScopes: 1, transferIdleTimeoutMs: 30 });
  const sink = await service.openUpload(appScope("a"), "x");
  await sink.write(bytes("abandoned"));
  await advance(29);
  await expect(service.put(appScope("b"), "x", bytes("b"))).rejects.toMatchObject({
    code: "max_active_scopes_reached",
  });
  await advance(1);
  await expect(sink.write(bytes("late"))).rejects.toMatchObject({
    code: "timeout",
    detail: { limit: "transfer_idle_timeout_ms", bound: 30 },
  });
  await expect(service.put(appScope("b"), "x", bytes("b"))).resolves.toMatchObject({
    version: 1,
  });
  await expect(service.get(appScope("a"), "x")).rejects.toMatchObject({ code: "not_found" });
}

export const TIME_LAWS: readonly RouterLaw[] = [
  law(
    "time",
    "an idle durable worker is never closed before idleScopeTimeoutMs, and is by the sweep after",
    idleWorkerAtItsEdge,
  ),
  law(
    "time",
    "a worker idle for exactly idleScopeTimeoutMs at a sweep is closed by it",
    idleForExactlyTheTimeout,
  ),
  law("time", "every call restarts a worker's idle time", everyCallKeepsAWorkerAlive),
  law("time", "an idle volatile worker is never closed", volatileNeverIdleClosed),
  law(
    "time",
    "a worker busy for longer than idleScopeTimeoutMs is not closed under its call",
    busyWorkerOutlivesTheTimeout,
  ),
  law(
    "time",
    "an upload idle for transferIdleTimeoutMs - 1 goes on; idle for transferIdleTimeoutMs it ends, publishing nothing",
    transferIdleAtItsEdge,
  ),
  law(
    "time",
    "a download idle for transferIdleTimeoutMs ends and lets its worker go",
    downloadIdleAtItsEdge,
  ),
  law(
    "time",
    "a transfer called more often than transferIdleTimeoutMs is kept",
    keptWhileCalledOften,
  ),
  law(
    "time",
    "an abandoned transfer pins its worker until transferIdleTimeoutMs, then frees it",
    abandonedTransferFreesItsWorker,
  ),
];
