import { expect } from "vitest";
import { law, type RouterContext, type RouterLaw } from "./context.js";
import { appScope, bytes, deferred, ScriptedShards } from "./scripted-shards.js";

// The calls on an open transfer, held or failed on the worker by the scripted workers' hook:
// a failure names the transfer, idleness counts only while no call is on the worker, and a
// transfer the router is stopping holds its worker until the stop is done.

const T = 1_000;
/** Three blocks: a download that takes several reads. */
const THREE_BLOCKS = 3 * 1024 * 1024;

/** A worker failing a write, a finish or a read answers unavailable naming the transfer. */
async function failedCallsSayWhatFailed({ router }: RouterContext) {
  const shards = new ScriptedShards("durable", "native");
  const service = router(shards);
  await service.put(appScope("a"), "x", bytes("abc"));
  const calls: [string, string, () => Promise<unknown>][] = [
    [
      "upload.write",
      "upload",
      async () => (await service.openUpload(appScope("a"), "y")).write(bytes("y")),
    ],
    [
      "upload.finish",
      "upload",
      async () => {
        const sink = await service.openUpload(appScope("a"), "y");
        await sink.write(bytes("y"));
        return sink.finish();
      },
    ],
    [
      "download.read",
      "download",
      async () => (await service.openDownload(appScope("a"), "x")).read(),
    ],
  ];
  for (const [operation, transfer, call] of calls) {
    shards.hook = (current) => {
      if (current === operation) throw new Error("disk on fire");
    };
    await expect(call(), operation).rejects.toMatchObject({
      code: "unavailable",
      message: expect.stringMatching(new RegExp(`${transfer}.*disk on fire`, "i")),
    });
  }
  // Each failure retired its worker, and the next call opened a new one.
  expect(service.status().failures).toBe(calls.length);
}

/** A call on the worker for longer than transferIdleTimeoutMs, beside shorter ones, is kept. */
async function idleOnlyWithNoCallOnTheWorker({ router, fakeClock, advance }: RouterContext) {
  fakeClock(["Date", "setTimeout", "clearTimeout"]);
  const shards = new ScriptedShards("durable", "native");
  const service = router(shards, { transferIdleTimeoutMs: T });
  await service.put(appScope("a"), "x", new Uint8Array(THREE_BLOCKS));
  const source = await service.openDownload(appScope("a"), "x");
  const gate = deferred();
  let held = false;
  shards.hook = (operation) => {
    if (operation !== "download.read" || held) return undefined;
    held = true;
    return gate.promise;
  };
  const slow = source.read();
  await expect(source.read()).resolves.toBeInstanceOf(Uint8Array);
  await advance(3 * T);
  gate.resolve();
  await expect(slow).resolves.toBeInstanceOf(Uint8Array);
  await expect(source.read(), "a read after the long one").resolves.toBeInstanceOf(Uint8Array);
}

/** The router's stop of a transfer holds its worker until the worker's transfer has stopped. */
async function pinnedUntilItsStopEnds({ router, fakeClock, advance }: RouterContext) {
  fakeClock(["Date", "setTimeout", "clearTimeout"]);
  const shards = new ScriptedShards("durable", "native");
  const service = router(shards, { maxActiveScopes: 1, transferIdleTimeoutMs: T });
  await service.put(appScope("a"), "x", new Uint8Array(THREE_BLOCKS));
  const source = await service.openDownload(appScope("a"), "x");
  const gate = deferred();
  shards.hook = (operation) => (operation === "download.cancel" ? gate.promise : undefined);
  await advance(T);
  // The idle stop is cancelling the worker's download; the caller's read ends it too.
  await expect(source.read()).rejects.toMatchObject({ code: "timeout" });
  await expect(service.put(appScope("b"), "x", bytes("b"))).rejects.toMatchObject({
    code: "max_active_scopes_reached",
  });
  expect(shards.workers[0]?.closed, "closed under its transfer's stop").toBe(false);
  gate.resolve();
  await new Promise((resolve) => setImmediate(resolve));
  shards.hook = () => undefined;
  await expect(service.put(appScope("b"), "x", bytes("b"))).resolves.toMatchObject({ version: 1 });
  expect(shards.workers[0]?.closed).toBe(true);
}

export const TRANSFER_CALL_LAWS: readonly RouterLaw[] = [
  law(
    "transfer",
    "a worker failing a write, finish or read answers unavailable naming the transfer and the reason",
    failedCallsSayWhatFailed,
  ),
  law(
    "time",
    "a transfer call on the worker for longer than transferIdleTimeoutMs, beside shorter ones, never lets the transfer idle out",
    idleOnlyWithNoCallOnTheWorker,
  ),
  law(
    "transfer",
    "a transfer the router is stopping holds its worker until the worker's transfer has stopped, however else it ends",
    pinnedUntilItsStopEnds,
  ),
];
