import { type ArtifactErrorCode, isArtifactError } from "@artifact-kit/core";
import { expect } from "vitest";
import type { EffectJournal, EffectReceipt, EffectRecord } from "../types.js";
import { expectExplained, refusalOf } from "./refusal-laws.js";
import {
  type EffectJournalConformanceOptions,
  intent,
  type JournalSubject,
  LEASE,
  RECEIPT,
  type Register,
  withJournal,
} from "./support.js";

// Every journal operation, as its writer would retry it (under the token it was given, 1),
// in every state a record can be in, through the handle that made the state and through the
// other one: what it returns, what it refuses, and that a refusal or a repeat changes nothing
// (not even the time of the last change, which prune ages count from).

/** Differs in the version alone (refusal-laws tries the digest and the size). */
const OTHER: EffectReceipt = { ...RECEIPT, version: 2 };
const CLAIM = { owner: "r2", leaseMs: 300, limit: 10, maxAttempts: 5 };
const BACKOFF = 50;

type Reach = (journal: EffectJournal, id: string, advance: (ms: number) => void) => Promise<void>;

const applied: Reach = async (journal, id) => {
  await journal.markApplied(id, 1, RECEIPT);
};
const expired: Reach = async (_journal, _id, advance) => advance(LEASE.leaseMs);
const takenOver: Reach = async (journal, _id, advance) => {
  advance(LEASE.leaseMs);
  await journal.claimOrphans({ ...CLAIM, owner: "r1" });
};
const then =
  (...steps: Reach[]): Reach =>
  async (journal, id, advance) => {
    for (const step of steps) await step(journal, id, advance);
  };

const STATES: Record<string, Reach> = {
  intended: async () => {},
  applied,
  committed: then(applied, (j, id) => j.settle(id, 1, "committed").then(() => {})),
  compensated: then(applied, (j, id) => j.settle(id, 1, "compensated").then(() => {})),
  not_applied: (j, id) => j.settle(id, 1, "not_applied").then(() => {}),
  "intended, lease expired": expired,
  "applied, lease expired": then(applied, expired),
  "intended, taken over": takenOver,
  "applied, taken over": then(applied, takenOver),
  "intended, failed once": (j, id) => j.recordFailure(id, 1, "down", BACKOFF).then(() => {}),
  // A claim keeps the failure count and text: maxAttempts counts across claims.
  "intended, failed once, backoff over": async (j, id, advance) => {
    await j.recordFailure(id, 1, "down", BACKOFF);
    advance(BACKOFF);
  },
  // Its own writer, restarted under the same owner name, takes it back: still a new token.
  "intended, taken back by its writer": async (journal, _id, advance) => {
    advance(LEASE.leaseMs);
    await journal.claimOrphans({ ...CLAIM, owner: LEASE.owner });
  },
};

/** Each operation, and the record it makes of `before` at `now` when it changes it. */
const OPS: Array<{
  name: string;
  run: (journal: EffectJournal, id: string) => Promise<unknown>;
  next: (before: EffectRecord, now: number) => EffectRecord;
}> = [
  {
    name: "markApplied",
    run: (j, id) => j.markApplied(id, 1, RECEIPT),
    next: (before, now) => ({ ...before, phase: "applied", receipt: RECEIPT, updatedAt: now }),
  },
  {
    name: "markApplied with another receipt",
    run: (j, id) => j.markApplied(id, 1, OTHER),
    next: (before, now) => ({ ...before, phase: "applied", receipt: OTHER, updatedAt: now }),
  },
  {
    name: "commit",
    run: (j, id) => j.settle(id, 1, "committed"),
    next: (before, now) => settled(before, "committed", before.receipt, now),
  },
  {
    name: "compensate with its own receipt",
    run: (j, id) => j.settle(id, 1, "compensated", OTHER),
    next: (before, now) => settled(before, "compensated", OTHER, now),
  },
  {
    name: "not_applied",
    run: (j, id) => j.settle(id, 1, "not_applied"),
    next: (before, now) => settled(before, "not_applied", undefined, now),
  },
  {
    name: "recordFailure",
    run: (j, id) => j.recordFailure(id, 1, "again", BACKOFF),
    next: (before, now) => ({
      ...before,
      attempts: before.attempts + 1,
      lastError: "again",
      lease: { ...before.lease, expiresAt: now + BACKOFF },
      updatedAt: now,
    }),
  },
  {
    name: "claimOrphans",
    run: (j) => j.claimOrphans(CLAIM),
    next: (before, now) => ({
      ...before,
      lease: { owner: CLAIM.owner, expiresAt: now + CLAIM.leaseMs, fencingToken: 2 },
      updatedAt: now,
    }),
  },
];

/** A settled record: the failure text goes, the receipt is the outcome's (none for not_applied). */
function settled(
  before: EffectRecord,
  phase: EffectRecord["phase"],
  receipt: EffectReceipt | undefined,
  now: number,
): EffectRecord {
  const { receipt: _receipt, lastError: _error, ...rest } = before;
  return { ...rest, phase, ...(receipt === undefined ? {} : { receipt }), updatedAt: now };
}

// One letter per operation of OPS, in order: N the change is made (claim: the record is
// claimed), S a no-op returning the record as stored, D refused with capability_denied,
// I refused with invalid_argument, R refused either way, - (claim) nothing claimed.
const EXPECTED: Record<keyof typeof STATES, string> = {
  intended: "NNINNN-",
  applied: "SDNNNN-",
  committed: "DDSDDD-",
  compensated: "DDDSDD-",
  not_applied: "DDDDSD-",
  "intended, lease expired": "NNINNNN",
  "applied, lease expired": "SDNNNNN",
  "intended, taken over": "DDRDDD-",
  "applied, taken over": "SDDDDD-",
  "intended, failed once": "NNINNN-",
  "intended, failed once, backoff over": "NNINNNN",
  "intended, taken back by its writer": "DDRDDD-",
};

const REFUSALS: Record<string, readonly ArtifactErrorCode[]> = {
  D: ["capability_denied"],
  I: ["invalid_argument"],
  R: ["capability_denied", "invalid_argument"],
};

/** What the outcome of one operation must be, by its letter in EXPECTED. */
function expectOutcome(
  letter: string | undefined,
  outcome: { value?: unknown; error?: unknown },
  before: EffectRecord,
  what: string,
): void {
  if (letter === "S") expect(outcome, what).toEqual({ value: before });
  else if (letter === "-") expect(outcome, what).toEqual({ value: [] });
  else {
    const codes = REFUSALS[letter ?? ""] ?? [];
    if (outcome.error instanceof Error) expectExplained(outcome.error, what);
    // The one invalid_argument here: a commit without a receipt to keep.
    if (letter === "I") expect(outcome.error, what).toMatchObject({ detail: { field: "receipt" } });
    expect(
      codes.some((code) => isArtifactError(outcome.error, code)),
      `${what}: ${String(outcome.error ?? "accepted")}`,
    ).toBe(true);
  }
}

async function everyOperationInEveryState(
  { journal, peer }: JournalSubject,
  advance: (ms: number) => void,
  clock: () => number,
) {
  let n = 0;
  for (const [state, reach] of Object.entries(STATES)) {
    for (const [index, op] of OPS.entries()) {
      // The handles take turns, so that each sees every state made by itself and by the other.
      const [by, handle] = n % 2 === 0 ? ["its maker", journal] : ["the other handle", peer];
      const id = `state-${n++}`;
      const what = `${op.name} on ${state}, through ${by}`;
      await journal.intend(intent(id), LEASE);
      await reach(journal, id, advance);
      advance(3);
      const before = (await peer.get(id)) as EffectRecord;
      const letter = EXPECTED[state]?.[index];
      const outcome = await op.run(handle, id).then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      );
      const after = (await peer.get(id)) as EffectRecord;
      if (letter === "N") {
        const next = op.next(before, clock());
        expect(outcome, what).toEqual({ value: op.name === "claimOrphans" ? [next] : next });
        expect(after, `${what}: as stored`).toEqual(next);
        expect(await handle.get(id), `${what}: read back`).toEqual(next);
      } else {
        expectOutcome(letter, outcome, before, what);
        expect(after, `${what} changed the record`).toEqual(before);
      }
      // Settled before the next case, so that only its own record is ever claimable.
      if (after.phase === "intended" || after.phase === "applied") {
        await peer.settle(id, after.lease.fencingToken, "not_applied");
      }
    }
  }
}

/** After close every operation fails with closed; the other handle, if any, is still open. */
async function closedHandleRefusesEverything({ journal, peer }: JournalSubject) {
  await journal.intend(intent("kept"), LEASE);
  await journal.close();
  await journal.close();
  const calls: Array<[string, () => Promise<unknown>]> = [
    ["intend", () => journal.intend(intent("late"), LEASE)],
    ["markApplied", () => journal.markApplied("kept", 1, RECEIPT)],
    ["settle", () => journal.settle("kept", 1, "not_applied")],
    ["recordFailure", () => journal.recordFailure("kept", 1, "x", 1)],
    ["claimOrphans", () => journal.claimOrphans(CLAIM)],
    ["get", () => journal.get("kept")],
    ["list", () => journal.list()],
    ["prune", () => journal.prune({ olderThan: 1, limit: 1 })],
  ];
  for (const [name, call] of calls) {
    const error = await refusalOf(call, name);
    expect(isArtifactError(error, "closed"), `${name}: ${String(error)}`).toBe(true);
  }
  if (peer === journal) return;
  expect(await peer.get("kept"), "closing one handle closed the other").toMatchObject({
    phase: "intended",
  });
  expect((await peer.settle("kept", 1, "not_applied")).phase).toBe("not_applied");
  expect((await peer.list()).map((record) => record.effectId)).toEqual(["kept"]);
}

export function stateLaws(options: EffectJournalConformanceOptions, it: Register): void {
  it("states: every operation, retried under its writer's token in every state, through either handle, changes exactly its fields or nothing", () =>
    withJournal(options, everyOperationInEveryState));
  it("states: a closed handle refuses every operation with closed, closing twice is harmless, and the other handle stays open", () =>
    withJournal(options, closedHandleRefusesEverything));
}
