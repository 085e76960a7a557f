import {
  ArtifactError,
  type ArtifactService,
  isArtifactError,
  sha256Hex,
} from "@artifact-kit/core";
import { expect } from "vitest";
import { artifactEffectHandler } from "../artifact-handler.js";
import { journalArtifacts } from "../journaled.js";
import type { EffectHandler } from "../reconcile.js";
import type { EffectJournal } from "../types.js";
import { expectField, refusalOf } from "./refusal-laws.js";
import { type EffectJournalConformanceOptions, LEASE, type Register, SCOPE } from "./support.js";
import { bytes, lossyService, overriding, receiptOf, type World, withWorld } from "./world.js";

// Journaled writes, the reconciler's options and the artifact handler's choices: what each
// accepts, refuses and records.

/** Failures that, by the service contract, changed nothing (journaled.ts lists the same). */
const NOTHING_CHANGED = [
  "invalid_argument",
  "artifact_too_large",
  "quota_exceeded",
  "capacity_reached",
  "max_active_scopes_reached",
  "capability_denied",
  "closed",
  "not_found",
  "timeout",
  "aborted",
  "overloaded",
];

/** The service, whose puts fail with `code` before writing anything. */
const refusing = (service: ArtifactService, code: string) =>
  overriding(service, "put", async () => {
    throw new ArtifactError(code as never, `refused: ${code}`);
  });

async function refusedPutsAreNotApplied({ journal, service }: World) {
  for (const code of [...NOTHING_CHANGED, "unavailable"]) {
    const writer = journalArtifacts(refusing(service, code), SCOPE, { journal, ...LEASE });
    const effectId = `refused-${code.replaceAll("_", "-")}`;
    const error = await refusalOf(() => writer.put("x", bytes("x"), { effectId }), code);
    const phase = (await journal.get(effectId))?.phase;
    if (code === "unavailable") {
      expect(isArtifactError(error, "effect_pending_reconciliation"), code).toBe(true);
      expect(phase).toBe("intended");
    } else {
      expect((error as { code?: string }).code, code).toBe(code);
      expect(phase, code).toBe("not_applied");
    }
  }
}

async function journaledInputs({ journal, peer, service }: World) {
  await expectField(
    async () => journalArtifacts(service, SCOPE, { ...LEASE, journal: {} as never }),
    "journal",
  );
  await expectField(
    async () => journalArtifacts(service, SCOPE, { journal, ...LEASE, extra: 1 } as never),
    "journaledOptions.extra",
  );
  const writer = journalArtifacts(service, SCOPE, {
    journal,
    ...LEASE,
    correlation: { invocation: "default" },
  });
  // Refused before anything is recorded: no effect is left to reconcile.
  await expectField(
    () => writer.put("a", bytes("a"), { idempotencyKey: "k", effectId: "bad-key" }),
    "idempotencyKey",
  );
  await expectField(() => writer.put("a", "text" as never, { effectId: "bad-data" }), "data");
  await expectField(() => writer.delete("a", 1.5 as never, { effectId: "bad-sel" }), "selector");
  for (const id of ["bad-key", "bad-data", "bad-sel"])
    expect(await peer.get(id), id).toBeUndefined();
  const described = { mimeType: "text/plain", metadata: { n: 1 } };
  const one = await writer.put("a", bytes("same"), { effectId: "d1", ...described });
  const two = await writer.put("a", bytes("same"), { effectId: "d2", ...described });
  const three = await writer.put("a", bytes("same"), {
    effectId: "d3",
    mimeType: "text/plain",
    metadata: { n: 2 },
    correlation: { invocation: "own" },
  });
  await writer.put("a", bytes("same"), { effectId: "d5", ...described, mimeType: "text/html" });
  const four = await writer.put("a", bytes("same"), { effectId: "d4", metadata: { n: 1 } });
  const digest = async (id: string) => (await peer.get(id))?.requestDigest;
  expect(await digest("d1")).toBe(await digest("d2"));
  expect(await digest("d3"), "metadata is part of the request").not.toBe(await digest("d1"));
  expect(await digest("d4"), "the MIME type is part of the request").not.toBe(await digest("d1"));
  expect(await digest("d5"), "so is its value").not.toBe(await digest("d1"));
  expect((await peer.get("d1"))?.correlation).toEqual({ invocation: "default" });
  expect((await peer.get("d3"))?.correlation).toEqual({ invocation: "own" });
  // A version number deletes that version, not the latest.
  const removed = await writer.delete("a", one.receipt.version, { effectId: "del-1" });
  expect(removed.receipt).toEqual(one.receipt);
  expect((await peer.get("del-1"))?.target).toEqual(one.receipt);
  await writer.delete("a", two.receipt.version, { effectId: "del-2" });
  expect(await digest("del-2"), "the version is part of a delete").not.toBe(await digest("del-1"));
  expect((await service.head(SCOPE, "a")).version).toBe(four.receipt.version);
  // A commit by another capability of the same owner reads the token back; others may not.
  const again = journalArtifacts(service, SCOPE, { journal: peer, ...LEASE });
  expect((await again.commit([two.effectId, three.effectId])).map((r) => r.phase)).toEqual([
    "committed",
    "committed",
  ]);
  const stranger = journalArtifacts(service, SCOPE, { journal, owner: "stranger", leaseMs: 1000 });
  expect(await refusalOf(() => stranger.commit(four.effectId), "stranger")).toMatchObject({
    code: "capability_denied",
    detail: { effectId: four.effectId, owner: LEASE.owner },
  });
  const unknown = await refusalOf(() => again.commit("nobody"), "unknown");
  expect(unknown).toMatchObject({ code: "not_found", detail: { effectId: "nobody" } });
  expect((unknown as Error).message, "a not_found names the effect").toContain("nobody");
  expect((await stranger.commit(two.effectId))[0]?.phase, "committing again is a no-op").toBe(
    "committed",
  );
}

async function reconcilerOptions(world: World) {
  const { service } = world;
  const handler = artifactEffectHandler(service);
  const retry = { attempts: 1, backoffMs: 10, maxBackoffMs: 10 };
  for (const [field, overrides] of [
    ["clock", { clock: "now" }],
    ["retry.maxBackoffMs", { retry: { ...retry, maxBackoffMs: 9 } }],
    ["retry.attempts", { retry: { ...retry, attempts: 0 } }],
    ["retry.backoffMs", { retry: { ...retry, backoffMs: 0 } }],
    ["retry.extra", { retry: { ...retry, extra: 1 } }],
    ["retry.maxBackoffMs", { retry: { ...retry, maxBackoffMs: 0 } }],
    ["limit", { limit: 0 }],
    ["timeBudgetMs", { timeBudgetMs: 0 }],
    ["reconcileOptions.extra", { extra: 1 }],
  ] as const) {
    await expectField(() => world.reconcile(overrides as never), field);
  }
  await expectField(() => world.reconcile({ handler: {} as EffectHandler }), "handler");
  await expectField(() => world.reconcile({ handler: null as never }), "handler");
  // Without a clock the reconciler runs on the wall clock.
  expect(await world.reconcile({ clock: undefined, handler })).toEqual({
    settled: [],
    failed: [],
    deferred: [],
  });
  await expectField(async () => artifactEffectHandler(service, { decide: 1 as never }), "decide");
  await expectField(async () => artifactEffectHandler(service, { maxPages: 0 }), "maxPages");
  await expectField(
    async () => artifactEffectHandler(service, { extra: 1 } as never),
    "handlerOptions.extra",
  );
  // Accepted at their edges: equal backoffs, a limit past one batch, no retry (the defaults).
  expect(await world.reconcile({ retry, handler })).toEqual({
    settled: [],
    failed: [],
    deferred: [],
  });
  const { maxBatch } = world.journal.capabilities().limits;
  expect((await world.reconcile({ limit: maxBatch + 1, handler })).settled).toEqual([]);
}

async function defaultsAndCutOff(world: World) {
  const { journal, advance, clock } = world;
  for (const id of ["default", "slow"]) {
    await journal.intend(
      { effectId: id, operation: "put", scope: SCOPE, name: id, requestDigest: sha256Hex(id) },
      LEASE,
    );
  }
  advance(LEASE.leaseMs);
  const failing: EffectHandler = {
    async reconcile(effect, signal) {
      if (effect.effectId === "default") throw new Error("down");
      // Waits for the cut-off: the claim's lease ends before the pass's budget.
      return new Promise((_, reject) =>
        signal.addEventListener("abort", () => reject(signal.reason)),
      );
    },
  };
  // An explicit undefined replaces the kit's own policy: the reconciler's default applies.
  const report = await world.reconcile({ retry: undefined, handler: failing, leaseMs: 50 });
  const errors = Object.fromEntries(report.failed.map((f) => [f.effectId, f.error]));
  expect(errors.slow).toMatch(/longer than 50 ms/);
  // Without a retry policy, the default's first backoff: 1,000 ms.
  expect((await journal.get("default"))?.lease.expiresAt).toBe(clock() + 1000);
}

async function decidedCommitKeepsTheVersion(world: World) {
  const { journal, service, advance } = world;
  const writer = journalArtifacts(service, SCOPE, { journal, ...LEASE });
  const applied = await writer.put("kept", bytes("kept"), { effectId: "kept" });
  await service.delete(SCOPE, "kept", applied.receipt.version);
  const gone = await writer.put("gone", bytes("gone"), { effectId: "gone" });
  advance(LEASE.leaseMs);
  const decided: string[] = [];
  const handler = artifactEffectHandler(service, {
    decide: (effect) => {
      decided.push(effect.effectId);
      return "commit";
    },
  });
  await service.delete(SCOPE, "gone", gone.receipt.version);
  const kept = await writer.put("kept", bytes("kept again"), { effectId: "kept-2" });
  advance(LEASE.leaseMs);
  const report = await world.reconcile({ handler });
  const outcomes = Object.fromEntries(report.settled.map((s) => [s.effectId, s.outcome]));
  // A recorded version someone deleted is compensated, never asked about; a live one is kept.
  expect(outcomes).toEqual({ kept: "compensated", gone: "compensated", "kept-2": "committed" });
  expect(decided).toEqual(["kept-2"]);
  expect((await service.head(SCOPE, "kept")).version).toBe(kept.receipt.version);
}

/** The service, which runs `then` once, right after the first head it answers. */
function afterFirstHead(service: ArtifactService, then: () => Promise<unknown>): ArtifactService {
  let first = true;
  return overriding(service, "head", async (...args: Parameters<ArtifactService["head"]>) => {
    const meta = await service.head(...args);
    if (first) {
      first = false;
      await then();
    }
    return meta;
  });
}

/**
 * A delete records the version it read and removes exactly that one, whatever lands or goes
 * between its read and its call; a retry of a journaled write under its effect id publishes
 * nothing more; a lease too short for any call is refused before the call.
 */
async function writesBetweenTheirSteps(world: World) {
  const { journal, peer, service } = world;
  const first = await service.put(SCOPE, "moving", bytes("first"));
  const newer = afterFirstHead(service, () => service.put(SCOPE, "moving", bytes("newer")));
  const writer = journalArtifacts(newer, SCOPE, { journal, ...LEASE });
  const deleted = await writer.delete("moving", "latest", { effectId: "del-read" });
  expect(deleted.receipt).toEqual(receiptOf(first));
  expect((await peer.get("del-read"))?.target).toEqual(receiptOf(first));
  const left = await service.listVersions(SCOPE, "moving");
  expect(left.items.map((meta) => meta.sha256)).toEqual([sha256Hex("newer")]);

  const gone = await service.put(SCOPE, "gone", bytes("gone"));
  const racing = afterFirstHead(service, () => service.delete(SCOPE, "gone", gone.version));
  const late = journalArtifacts(racing, SCOPE, { journal, ...LEASE });
  const refused = await refusalOf(
    () => late.delete("gone", "latest", { effectId: "del-gone" }),
    "gone",
  );
  expect(isArtifactError(refused, "not_found"), String(refused)).toBe(true);
  expect(await peer.get("del-gone")).toMatchObject({
    phase: "not_applied",
    target: receiptOf(gone),
  });

  // Retried under the same effect id after a lost reply: the intent is refused, so the put,
  // held by it (its publishGate), publishes nothing.
  const lossy = lossyService(service);
  const retrying = journalArtifacts(lossy.service, SCOPE, { journal, ...LEASE });
  lossy.state.lose = true;
  await refusalOf(() => retrying.put("once", bytes("once"), { effectId: "put-once" }), "lost");
  lossy.state.lose = false;
  await expectField(
    () => retrying.put("once", bytes("once"), { effectId: "put-once" }),
    "effectId",
  );
  expect((await service.listVersions(SCOPE, "once")).items).toHaveLength(1);
  expect((await peer.get("put-once"))?.phase).toBe("intended");

  // Four fifths of a 1 ms lease is no time at all: the call is never made.
  const hasty = journalArtifacts(service, SCOPE, { journal, owner: "hasty", leaseMs: 1 });
  await expectField(() => hasty.put("hasty", bytes("x"), { effectId: "hasty" }), "leaseMs");
  expect(await peer.get("hasty")).toMatchObject({ phase: "not_applied" });
  await refusalOf(() => service.head(SCOPE, "hasty"), "the hasty put landed");
}

/**
 * The service, whose puts report (`reached`) when they start to wait on their publishGate.
 * A writer that does not start its put before its intent is recorded never reaches it while
 * the intent is held: the law then fails at the test's timeout.
 */
function watchingGates(service: ArtifactService) {
  let reach = () => {};
  const reached = new Promise<void>((resolve) => {
    reach = resolve;
  });
  const watched = overriding(service, "put", (...[scope, name, data, options]: PutArgs) => {
    const gate = options?.publishGate;
    // A put that publishes without a gate "reaches" it once done: the law then sees it listed.
    if (gate === undefined) return service.put(scope, name, data, options).finally(reach);
    const publishGate: PromiseLike<unknown> = {
      // biome-ignore lint/suspicious/noThenProperty: a gate is a thenable; its then says the put waits
      then(onOpened, onRefused) {
        reach();
        return gate.then(onOpened, onRefused);
      },
    };
    return service.put(scope, name, data, { ...options, publishGate });
  });
  return { service: watched, reached };
}
type PutArgs = Parameters<ArtifactService["put"]>;

/** The journal, whose intents wait for `release` (and fail with what it is given, if anything). */
function holdingIntents(journal: EffectJournal) {
  let release: (failure?: Error) => void = () => {};
  const released = new Promise<Error | undefined>((resolve) => {
    release = resolve;
  });
  const held = overriding(
    journal,
    "intend",
    async (...args: Parameters<EffectJournal["intend"]>) => {
      const failure = await released;
      if (failure) throw failure;
      return journal.intend(...args);
    },
  );
  return { journal: held, release };
}

/**
 * A journaled put starts its put beside its intent, but the version is published only once
 * the intent is recorded: while the intent is held, the put waits at its gate and nothing is
 * listed; when the intent fails, nothing is published and the journal's error is the answer.
 */
async function putsWaitForTheirIntent({ journal, peer, service }: World) {
  for (const failure of [undefined, new ArtifactError("unavailable", "the journal is down")]) {
    const name = failure ? "intent-failed" : "intent-held";
    const gates = watchingGates(service);
    const intents = holdingIntents(journal);
    const writer = journalArtifacts(gates.service, SCOPE, { journal: intents.journal, ...LEASE });
    const put = writer.put(name, bytes(name), { effectId: name });
    put.catch(() => {}); // judged below
    await gates.reached;
    expect((await service.listVersions(SCOPE, name)).items, name).toEqual([]);
    expect(await peer.get(name), name).toBeUndefined();
    intents.release(failure);
    if (failure) {
      expect(await refusalOf(() => put, name)).toBe(failure);
      expect((await service.listVersions(SCOPE, name)).items, name).toEqual([]);
      continue;
    }
    const { receipt } = await put;
    const listed = (await service.listVersions(SCOPE, name)).items.map(receiptOf);
    expect(listed).toEqual([receipt]);
    expect(await peer.get(name)).toMatchObject({ phase: "applied", receipt });
  }
}

export function journaledLaws(options: EffectJournalConformanceOptions, it: Register): void {
  it("journaled: a put the service refused changed nothing and is not_applied; any other failure is pending", () =>
    withWorld(options, refusedPutsAreNotApplied));
  it("journaled: options and inputs refused by field; digests, correlation, exact deletes and commits by any capability of the owner", () =>
    withWorld(options, journaledInputs));
  it("journaled: reconciler and handler options refused by field, accepted at their edges", () =>
    withWorld(options, reconcilerOptions));
  it("journaled: without a retry policy the default backoff applies; a handler is cut off at the claim's lease end", () =>
    withWorld(options, defaultsAndCutOff));
  it("journaled: decide keeps a live put's version; a recorded version already deleted is compensated unasked", () =>
    withWorld(options, decidedCommitKeepsTheVersion));
  it("journaled: a delete removes the version it recorded whatever lands or goes meanwhile; a retried effect id writes nothing more; a lease too short is refused before the call", () =>
    withWorld(options, writesBetweenTheirSteps));
  it("journaled: a put is started beside its intent and publishes only once the intent is recorded; a failed intent publishes nothing", () =>
    withWorld(options, putsWaitForTheirIntent));
}
