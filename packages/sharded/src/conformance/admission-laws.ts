import { expect } from "vitest";
import type { ShardedArtifactServiceOptions } from "../options.js";
import { law, type RouterContext, type RouterLaw } from "./context.js";
import { appScope, bytes, deferred, ScriptedShards } from "./scripted-shards.js";

// Admission: at most maxActiveScopes workers, at most maxRouterQueue cold routes waiting, each
// bound exact, and a place in the queue given back by a caller that leaves it.

/** A router whose worker opens all wait for `gate`: cold routes queue up behind it. */
function blockedOpens(
  { router }: RouterContext,
  options: ShardedArtifactServiceOptions & { maxRouterQueue: number },
) {
  const shards = new ScriptedShards("volatile");
  const gate = deferred();
  shards.openGate = gate.promise;
  return { shards, gate, router: router(shards, { maxConcurrentOpens: 1, ...options }) };
}

async function refusedAtMaxActiveScopes({ router }: RouterContext) {
  const shards = new ScriptedShards("volatile");
  const service = router(shards, { maxActiveScopes: 2 });
  await service.put(appScope("a"), "x", bytes("a"));
  await service.put(appScope("b"), "x", bytes("b"));
  // The refusal says why: the bound, and that volatile workers are never reclaimed.
  await expect(service.put(appScope("c"), "x", bytes("c"))).rejects.toMatchObject({
    code: "max_active_scopes_reached",
    detail: { limit: "max_active_scopes", bound: 2 },
    message: expect.stringMatching(/^(?=.*maxActiveScopes)(?=.*\b2\b)(?=.*volatile)/),
  });
  // Admitted scopes carry on; the refused one opened nothing.
  await expect(service.get(appScope("a"), "x")).resolves.toMatchObject({ version: 1 });
  expect(shards.opened).toEqual(["a", "b"]);
  expect(service.status()).toMatchObject({ activeScopes: 2, reclamation: false, evictions: 0 });
}

function exactlyTheBoundUnderConcurrency(bound: number) {
  return async ({ router }: RouterContext) => {
    const shards = new ScriptedShards("volatile");
    const service = router(shards, { maxActiveScopes: bound });
    const outcomes = await Promise.allSettled(
      Array.from({ length: bound + 3 }, (_, i) => service.put(appScope(`c${i}`), "x", bytes("x"))),
    );
    expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(bound);
    for (const outcome of outcomes) {
      if (outcome.status === "rejected") {
        expect(outcome.reason).toMatchObject({ code: "max_active_scopes_reached" });
      }
    }
    expect(service.status().activeScopes).toBe(bound);
    expect(shards.opened).toHaveLength(bound);
  };
}

async function overloadedPastTheQueue(context: RouterContext) {
  const { shards, gate, router } = blockedOpens(context, { maxRouterQueue: 2 });
  const first = router.put(appScope("a"), "x", bytes("a")); // opening
  const second = router.put(appScope("b"), "x", bytes("b")); // waiting
  expect(router.status()).toMatchObject({ openingScopes: 1, queuedRequests: 1 });
  await expect(router.put(appScope("c"), "x", bytes("c"))).rejects.toMatchObject({
    code: "overloaded",
    detail: { limit: "max_router_queue", bound: 2 },
    message: expect.stringMatching(/^(?=.*maxRouterQueue)(?=.*\b2\b)/),
  });
  gate.resolve();
  await expect(Promise.all([first, second])).resolves.toHaveLength(2);
  expect(router.status()).toMatchObject({ openingScopes: 0, queuedRequests: 0 });
  await expect(router.put(appScope("c"), "x", bytes("c"))).resolves.toMatchObject({ version: 1 });
  expect(shards.opened).toEqual(["a", "b", "c"]);
}

/** The queue holds exactly maxRouterQueue: one fewer never refuses. */
async function queueHoldsExactlyItsBound(context: RouterContext) {
  const { shards, gate, router } = blockedOpens(context, { maxRouterQueue: 3 });
  const admitted = ["a", "b", "c"].map((app) => router.put(appScope(app), "x", bytes(app)));
  await expect(router.put(appScope("d"), "x", bytes("d"))).rejects.toMatchObject({
    code: "overloaded",
  });
  gate.resolve();
  await expect(Promise.all(admitted)).resolves.toHaveLength(3);
  expect(shards.opened).toEqual(["a", "b", "c"]);
}

async function abortFreesItsPlace(context: RouterContext) {
  const { shards, gate, router } = blockedOpens(context, { maxRouterQueue: 2 });
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
}

async function abortedBeforeQueueing(context: RouterContext) {
  const { shards, gate, router } = blockedOpens(context, { maxRouterQueue: 2 });
  const first = router.put(appScope("a"), "x", bytes("a"));
  const signal = AbortSignal.abort(new Error("gone before it came"));
  await expect(router.put(appScope("b"), "x", bytes("b"), { signal })).rejects.toMatchObject({
    code: "aborted",
  });
  gate.resolve();
  await first;
  expect(shards.opened).toEqual(["a"]);
  expect(router.status().queuedRequests).toBe(0);
}

async function deadlineWhileQueued(context: RouterContext) {
  const { shards, gate, router } = blockedOpens(context, { maxRouterQueue: 2 });
  const first = router.put(appScope("a"), "x", bytes("a"));
  const late = router.put(appScope("late"), "x", bytes("l"), { timeoutMs: 1 });
  await expect(late).rejects.toMatchObject({ code: "timeout" });
  expect(router.status().queuedRequests).toBe(0);
  gate.resolve();
  await first;
  expect(shards.opened).toEqual(["a"]);
}

async function staleBeforeItsTurn(context: RouterContext) {
  // Only Date is faked: the deadline passes, but its abort timer has not fired yet, so the
  // request is still queued when the gate opens.
  context.fakeClock(["Date"]);
  const { shards, gate, router } = blockedOpens(context, { maxRouterQueue: 2 });
  const first = router.put(appScope("a"), "x", bytes("a"));
  const stale = router.put(appScope("stale"), "x", bytes("s"), { timeoutMs: 60_000 });
  await context.advance(120_000);
  gate.resolve();
  await expect(stale).rejects.toMatchObject({ code: "timeout" });
  await first;
  expect(shards.opened).toEqual(["a"]);
}

/**
 * Calls on a scope whose worker is opening join that open, whether they queue behind it (one
 * open at a time) or start beside it (several opens at once).
 */
function opensOnceForConcurrentCalls(maxConcurrentOpens: number) {
  return async (context: RouterContext) => {
    const { shards, gate, router } = blockedOpens(context, {
      maxRouterQueue: 3,
      maxConcurrentOpens,
    });
    const calls = ["1", "2", "3"].map((text) => router.put(appScope("a"), "x", bytes(text)));
    gate.resolve();
    const versions = (await Promise.all(calls)).map((meta) => meta.version).sort();
    expect(versions).toEqual([1, 2, 3]);
    expect(shards.opened).toEqual(["a"]);
  };
}

/** maxConcurrentOpens workers open at once, never more, whatever the queue holds. */
async function opensAtMostMaxConcurrentOpens({ router }: RouterContext) {
  const shards = new ScriptedShards("volatile");
  const gate = deferred();
  shards.openGate = gate.promise;
  const service = router(shards, { maxConcurrentOpens: 2, maxRouterQueue: 10 });
  const puts = ["a", "b", "c", "d"].map((app) => service.put(appScope(app), "x", bytes(app)));
  await new Promise((resolve) => setImmediate(resolve));
  expect(shards.opened).toEqual(["a", "b"]);
  expect(service.status()).toMatchObject({ openingScopes: 2, queuedRequests: 2 });
  gate.resolve();
  await Promise.all(puts);
  expect(shards.opened).toEqual(["a", "b", "c", "d"]);
}

export const ADMISSION_LAWS: readonly RouterLaw[] = [
  law(
    "admission",
    "a new scope past maxActiveScopes is max_active_scopes_reached and opens nothing",
    refusedAtMaxActiveScopes,
  ),
  ...[1, 3].map((bound) =>
    law(
      "admission",
      `of ${bound + 3} concurrent cold routes, exactly maxActiveScopes = ${bound} are admitted`,
      exactlyTheBoundUnderConcurrency(bound),
    ),
  ),
  law(
    "admission",
    "cold routes past maxRouterQueue are overloaded, and served once it drains",
    overloadedPastTheQueue,
  ),
  law("admission", "the router queue holds exactly maxRouterQueue", queueHoldsExactlyItsBound),
  law(
    "admission",
    "a caller that aborts while queued frees its place and opens no worker",
    abortFreesItsPlace,
  ),
  law(
    "admission",
    "a caller aborted before it asks is aborted and opens no worker",
    abortedBeforeQueueing,
  ),
  law(
    "admission",
    "a caller whose deadline passes while queued is timeout and opens no worker",
    deadlineWhileQueued,
  ),
  law("admission", "a request that went stale before its turn opens no worker", staleBeforeItsTurn),
  ...[1, 4].map((opens) =>
    law(
      "admission",
      `concurrent cold calls on one scope open it once (maxConcurrentOpens ${opens})`,
      opensOnceForConcurrentCalls(opens),
    ),
  ),
  law(
    "admission",
    "at most maxConcurrentOpens workers open at once",
    opensAtMostMaxConcurrentOpens,
  ),
];
