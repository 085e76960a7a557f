import { closedError } from "@artifact-kit/core";
import { expect } from "vitest";
import { law, type RouterContext, type RouterLaw, type RouterUnderTest } from "./context.js";
import { appScope, bytes, deferred, ScriptedShards } from "./scripted-shards.js";

// Worker failure and close: a worker that shows a backend failure is retired (only it), a
// contract error is an answer, not a failure; close stops everything, queued calls included.

/** Makes the next operation of `app`'s worker throw `failure` (a plain error by default). */
function breakOnce(
  shards: ScriptedShards,
  app: string,
  failure: unknown = new Error("disk on fire"),
) {
  let broken = false;
  shards.hook = (_operation, shard) => {
    if (shard.scope?.app === app && !broken) {
      broken = true;
      throw failure;
    }
  };
}

async function retiresAFailedWorker({ router }: RouterContext) {
  const shards = new ScriptedShards("durable");
  const service = router(shards);
  await service.put(appScope("a"), "x", bytes("a"));
  await service.put(appScope("b"), "x", bytes("b"));
  breakOnce(shards, "a");
  await expect(service.get(appScope("a"), "x")).rejects.toMatchObject({
    code: "unavailable",
    cause: expect.objectContaining({ message: "disk on fire" }),
  });
  expect(service.status()).toMatchObject({ activeScopes: 1, failures: 1 });
  expect(shards.workers[0]?.closed).toBe(true);
  await expect(service.get(appScope("a"), "x")).resolves.toMatchObject({ version: 1 });
  // Only the failed scope was reopened.
  expect(shards.opened).toEqual(["a", "b", "a"]);
}

/** A worker that says it is closed while the router is open has failed, as unavailable would. */
async function closedWorkerIsRetired({ router }: RouterContext) {
  const shards = new ScriptedShards("durable");
  const service = router(shards);
  await service.put(appScope("a"), "x", bytes("a"));
  breakOnce(shards, "a", closedError());
  await expect(service.get(appScope("a"), "x")).rejects.toMatchObject({ code: "closed" });
  expect(service.status()).toMatchObject({ activeScopes: 0, failures: 1 });
  await expect(service.get(appScope("a"), "x")).resolves.toMatchObject({ version: 1 });
  expect(shards.opened).toEqual(["a", "a"]);
}

/** A worker failing under a call that others share closes only once they are all done. */
async function retiredWorkerFinishesItsCalls({ router }: RouterContext) {
  const shards = new ScriptedShards("durable");
  const service = router(shards);
  await service.put(appScope("a"), "x", bytes("a"));
  const gate = deferred();
  let calls = 0;
  shards.hook = () => {
    calls += 1;
    if (calls === 1) return gate.promise;
    throw new Error("disk on fire");
  };
  const slow = service.get(appScope("a"), "x");
  await expect(service.get(appScope("a"), "x")).rejects.toMatchObject({ code: "unavailable" });
  expect(shards.workers[0]?.closed, "closed under a call in flight").toBe(false);
  gate.resolve();
  await expect(slow).resolves.toMatchObject({ version: 1 });
  expect(shards.workers[0]?.closed, "closed once its last call ended").toBe(true);
  // The call that outlived its worker's retirement does not bring it back: a new one serves.
  shards.hook = () => undefined;
  await expect(service.get(appScope("a"), "x")).resolves.toMatchObject({ version: 1 });
  expect(shards.opened).toEqual(["a", "a"]);
  expect(service.status()).toMatchObject({ activeScopes: 1, failures: 1 });
}

/** What each operation is called in a failure's message (the transfers by what they move). */
const OPERATIONS: readonly [string, (service: RouterUnderTest) => Promise<unknown>][] = [
  ["put", (service) => service.put(appScope("a"), "x", bytes("a2"))],
  ["get", (service) => service.get(appScope("a"), "x")],
  ["head", (service) => service.head(appScope("a"), "x")],
  ["delete", (service) => service.delete(appScope("a"), "x", "all")],
  ["listNames", (service) => service.listNames(appScope("a"))],
  ["listVersions", (service) => service.listVersions(appScope("a"), "x")],
  ["list", (service) => service.list(appScope("a"))],
  ["upload", (service) => service.openUpload(appScope("a"), "x")],
  ["download", (service) => service.openDownload(appScope("a"), "x")],
];

/**
 * A worker's failure reaches the caller as unavailable that says which operation failed and
 * why (the worker's own reason), for every operation: an operator reads it from a log line.
 */
async function failuresSayWhatFailed({ router }: RouterContext) {
  const shards = new ScriptedShards("durable", "native");
  const service = router(shards);
  await service.put(appScope("a"), "x", bytes("a"));
  for (const [operation, call] of OPERATIONS) {
    breakOnce(shards, "a");
    await expect(call(service), operation).rejects.toMatchObject({
      code: "unavailable",
      message: expect.stringMatching(new RegExp(`${operation}.*disk on fire`, "i")),
    });
  }
  const failing = new ScriptedShards("durable");
  const sharedFailing = router(failing, { strategy: "shared" });
  await sharedFailing.put(appScope("a"), "x", bytes("a"));
  failing.hook = () => {
    throw new Error("disk on fire");
  };
  await expect(sharedFailing.listScopes()).rejects.toMatchObject({
    code: "unavailable",
    message: expect.stringMatching(/listScopes.*disk on fire/i),
  });
  // Exact scope: listScopes asks each scope's worker for a name, and says so when one fails.
  breakOnce(shards, "a");
  await expect(service.listScopes()).rejects.toMatchObject({
    code: "unavailable",
    message: expect.stringMatching(/list.*disk on fire/i),
  });
  expect(service.status().failures).toBe(OPERATIONS.length + 1);
}

async function volatileFailureLosesData({ router }: RouterContext) {
  const shards = new ScriptedShards("volatile");
  const service = router(shards);
  await service.put(appScope("a"), "x", bytes("a"));
  breakOnce(shards, "a");
  await expect(service.head(appScope("a"), "x")).rejects.toMatchObject({ code: "unavailable" });
  await expect(service.head(appScope("a"), "x")).rejects.toMatchObject({ code: "not_found" });
}

async function contractErrorKeepsTheWorker({ router }: RouterContext) {
  const shards = new ScriptedShards("volatile");
  const service = router(shards);
  await expect(service.get(appScope("a"), "missing")).rejects.toMatchObject({ code: "not_found" });
  await service.put(appScope("a"), "x", bytes("a"));
  expect(shards.opened).toEqual(["a"]);
  expect(service.status().failures).toBe(0);
}

async function factoryFailure({ router }: RouterContext) {
  const shards = new ScriptedShards("volatile");
  let attempts = 0;
  const service = router({
    capabilities: shards.capabilities,
    open: (shard) => {
      attempts += 1;
      if (attempts === 1) throw new Error("no space left");
      return shards.open(shard);
    },
  });
  // The message says that opening the worker failed, and why.
  await expect(service.put(appScope("a"), "x", bytes("a"))).rejects.toMatchObject({
    code: "unavailable",
    message: expect.stringMatching(/open.*no space left/i),
  });
  expect(service.status()).toMatchObject({ activeScopes: 0, openingScopes: 0 });
  await expect(service.put(appScope("a"), "x", bytes("a"))).resolves.toMatchObject({
    version: 1,
  });
}

async function capabilityMismatch({ router }: RouterContext) {
  const declared = new ScriptedShards("durable");
  const actual = new ScriptedShards("volatile");
  const service = router({
    capabilities: declared.capabilities,
    open: (shard) => actual.open(shard),
  });
  await expect(service.put(appScope("a"), "x", bytes("a"))).rejects.toMatchObject({
    code: "unavailable",
    message: expect.stringContaining("capabilities"),
  });
  expect(actual.workers[0]?.closed).toBe(true);
  expect(service.status().activeScopes).toBe(0);
}

async function closeStopsEverything({ router }: RouterContext) {
  const shards = new ScriptedShards("durable");
  const service = router(shards, { maxConcurrentOpens: 1 });
  await service.put(appScope("a"), "x", bytes("a"));
  await service.put(appScope("b"), "x", bytes("b"));
  const gate = deferred();
  shards.openGate = gate.promise;
  const opening = service.put(appScope("c"), "x", bytes("c"));
  const queued = service.put(appScope("d"), "x", bytes("d"));
  const closing = service.close();
  await expect(queued).rejects.toMatchObject({ code: "closed" });
  await expect(opening).rejects.toMatchObject({ code: "closed" });
  expect(shards.workers.map((worker) => worker.closed)).toEqual([true, true]);
  // close() waits for the open under way, and closes that worker instead of keeping it.
  gate.resolve();
  await closing;
  expect(shards.workers[2]?.closed).toBe(true);
  expect(shards.opened).toEqual(["a", "b", "c"]);
  const calls: (() => Promise<unknown>)[] = [
    () => service.get(appScope("a"), "x"),
    () => service.head(appScope("a"), "x"),
    () => service.listNames(appScope("a")),
    () => service.listVersions(appScope("a"), "x"),
    () => service.list(appScope("a")),
    () => service.delete(appScope("a"), "x", "all"),
    () => service.put(appScope("e"), "x", bytes("e")),
    () => service.openUpload(appScope("a"), "x"),
    () => service.openDownload(appScope("a"), "x"),
  ];
  for (const call of calls) await expect(call()).rejects.toMatchObject({ code: "closed" });
  await service.close();
  expect(service.status()).toMatchObject({ closed: true, activeScopes: 0 });
  expect(shards.opened).toEqual(["a", "b", "c"]);
}

/** A router closing while a worker fails under it reports closed, and counts no failure. */
async function closedWorkersAreNotFailures({ router }: RouterContext) {
  const shards = new ScriptedShards("durable");
  const service = router(shards);
  await service.put(appScope("a"), "x", bytes("a"));
  const gate = deferred();
  shards.hook = async () => {
    await gate.promise;
    throw closedError();
  };
  const inFlight = service.get(appScope("a"), "x");
  const closing = service.close();
  gate.resolve();
  await expect(inFlight).rejects.toMatchObject({ code: "closed" });
  await closing;
  expect(service.status()).toMatchObject({ closed: true, failures: 0 });
}

/** Each worker the router ever opened is closed by the time close() resolves. */
async function closeClosesEveryWorker({ router }: RouterContext) {
  const shards = new ScriptedShards("durable", "native");
  const service = router(shards);
  for (const app of ["a", "b", "c"]) await service.put(appScope(app), "x", bytes(app));
  const sink = await service.openUpload(appScope("b"), "y");
  await sink.write(bytes("unfinished"));
  await service.close();
  expect(shards.workers.map((worker) => worker.closed)).toEqual([true, true, true]);
  await expect(sink.finish()).rejects.toMatchObject({ code: "closed" });
}

export const FAILURE_LAWS: readonly RouterLaw[] = [
  law(
    "failure",
    "a worker that fails is retired alone; its scope reopens, durable data with it",
    retiresAFailedWorker,
  ),
  law(
    "failure",
    "a worker that reports closed while the router is open is retired",
    closedWorkerIsRetired,
  ),
  law(
    "failure",
    "a retired worker closes only once its calls in flight have ended",
    retiredWorkerFinishesItsCalls,
  ),
  law(
    "failure",
    "a worker's failure is unavailable naming the operation that failed and the worker's reason, for every operation",
    failuresSayWhatFailed,
  ),
  law("failure", "a failed volatile worker comes back empty", volatileFailureLosesData),
  law("failure", "an ordinary contract error keeps the worker", contractErrorKeepsTheWorker),
  law(
    "failure",
    "a factory that cannot open a worker fails the call and keeps nothing",
    factoryFailure,
  ),
  law(
    "failure",
    "a worker whose capabilities differ from the factory's is refused and closed",
    capabilityMismatch,
  ),
  law(
    "close",
    "close closes every worker, fails queued, opening and later calls with closed, and is idempotent",
    closeStopsEverything,
  ),
  law("close", "a worker closed under a closing router is no failure", closedWorkersAreNotFailures),
  law("close", "close stops open transfers and closes every worker", closeClosesEveryWorker),
];
