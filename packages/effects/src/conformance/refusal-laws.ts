import { isArtifactError } from "@artifact-kit/core";
import { expect } from "vitest";
import type { EffectJournal } from "../types.js";
import {
  type EffectJournalConformanceOptions,
  intent,
  type JournalSubject,
  LEASE,
  RECEIPT,
  type Register,
  withJournal,
} from "./support.js";

// What each refusal says: its code and the field or effect it is about, so that a caller can
// tell which input to fix; and the receipts each outcome keeps.

/** The error `call` fails with; any success fails the law. */
export async function refusalOf(call: () => Promise<unknown>, what: string): Promise<unknown> {
  const error = await call().then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error, `${what}: expected a refusal`).toBeDefined();
  if (isArtifactError(error)) expectExplained(error, what);
  return error;
}

/** An error tells a person why: a message that is more than the field it names. */
export function expectExplained(error: Error & { detail?: { field?: unknown } }, what: string) {
  const field = error.detail?.field;
  const said = typeof field === "string" ? error.message.replace(`${field}:`, "") : error.message;
  expect(said.trim(), `${what}: the error's message says nothing`).not.toBe("");
}

/** `call` fails with invalid_argument naming `field` in detail.field. */
export async function expectField(call: () => Promise<unknown>, field: string): Promise<void> {
  const error = await refusalOf(call, field);
  expect(isArtifactError(error, "invalid_argument"), `${field}: ${String(error)}`).toBe(true);
  expect((error as { detail: { field?: string } }).detail.field).toBe(field);
}

const entries = (count: number) =>
  Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, "v"]));

function badCalls(journal: EffectJournal): Array<[field: string, call: () => Promise<unknown>]> {
  const ok = intent("ok");
  const put = (overrides: Record<string, unknown>) =>
    journal.intend({ ...ok, ...overrides } as never, LEASE);
  const del = (target: unknown) => put({ operation: "delete", target });
  return [
    ["effectId", () => put({ effectId: "a!" })],
    ["effectId", () => put({ effectId: "!a" })],
    ["requestDigest", () => put({ requestDigest: `x${"0".repeat(64)}` })],
    ["requestDigest", () => put({ requestDigest: `${"0".repeat(64)}x` })],
    ["operation", () => put({ operation: "move" })],
    ["target", () => put({ operation: "delete" })],
    ["target", () => put({ target: RECEIPT })],
    ["target.size", () => del({ ...RECEIPT, size: -1 })],
    ["target.version", () => del({ ...RECEIPT, version: 0 })],
    ["target.sha256", () => del({ ...RECEIPT, sha256: "nope" })],
    ["correlation", () => put({ correlation: null })],
    ["correlation", () => put({ correlation: entries(17) })],
    ["correlation.k", () => put({ correlation: { k: 7 } })],
    ["correlation", () => put({ correlation: { ["k".repeat(257)]: "v" } })],
    ["intent.extra", () => put({ extra: 1 })],
    ["owner", () => journal.intend(ok, { owner: "", leaseMs: 10 })],
    ["leaseMs", () => journal.intend(ok, { owner: "w", leaseMs: 0 })],
    ["fencingToken", () => journal.markApplied("e1", 0, RECEIPT)],
    ["receipt.size", () => journal.markApplied("e1", 1, { ...RECEIPT, size: -1 })],
    ["outcome", () => journal.settle("e1", 1, "done" as never)],
    ["limit", () => journal.claimOrphans({ owner: "r", leaseMs: 1, limit: 1001, maxAttempts: 1 })],
    [
      "maxAttempts",
      () => journal.claimOrphans({ owner: "r", leaseMs: 1, limit: 1, maxAttempts: 0 }),
    ],
    ["olderThan", () => journal.prune({ olderThan: -1, limit: 1 })],
    ["limit", () => journal.prune({ olderThan: 0, limit: 0 })],
    ["prune.extra", () => journal.prune({ olderThan: 0, limit: 1, extra: 1 } as never)],
    ["effectId", () => journal.intend(intent("e1"), LEASE)],
    ["retryAfterMs", () => journal.recordFailure("e1", 1, "x", 0)],
    ["effectId", () => journal.get("a b")],
  ];
}

async function refusalsNameTheirField({ journal }: JournalSubject) {
  await journal.intend(intent("e1"), LEASE);
  for (const [field, call] of badCalls(journal)) await expectField(call, field);
  // At the bounds exactly: accepted.
  await journal.intend(intent("full", { correlation: entries(16) }), LEASE);
  expect(await journal.prune({ olderThan: 0, limit: 1 })).toEqual({ pruned: 0 });
}

async function refusalsNameTheEffect({ journal }: JournalSubject, advance: (ms: number) => void) {
  const absent = await refusalOf(() => journal.settle("absent", 1, "not_applied"), "absent");
  expect(absent).toMatchObject({ code: "not_found", detail: { effectId: "absent" } });
  const messageOf = (error: unknown) => (error as Error).message;
  expect(messageOf(absent), "a not_found names the effect").toContain("absent");
  const duplicate = await journal.intend(intent("twice"), LEASE);
  const again = await refusalOf(() => journal.intend(intent("twice"), LEASE), "twice");
  expect(messageOf(again), "a duplicate names the effect").toContain("twice");
  await journal.settle("twice", duplicate.lease.fencingToken, "not_applied");
  await journal.intend(intent("e1"), LEASE);
  advance(LEASE.leaseMs);
  await journal.claimOrphans({ owner: "r", leaseMs: 10, limit: 1, maxAttempts: 1 });
  const stale = await refusalOf(() => journal.markApplied("e1", 1, RECEIPT), "stale");
  expect(stale).toMatchObject({
    code: "capability_denied",
    detail: { effectId: "e1", fencingToken: 1, currentToken: 2 },
  });
  expect(messageOf(stale), "a stale token's refusal names the effect").toContain("e1");
  await journal.settle("e1", 2, "not_applied");
  const settled = await refusalOf(() => journal.settle("e1", 2, "committed", RECEIPT), "settled");
  expect(settled).toMatchObject({
    code: "capability_denied",
    detail: { effectId: "e1", phase: "not_applied" },
  });
  expect(messageOf(settled), "a settled effect's refusal names it and its phase").toMatch(
    /e1.*not_applied/,
  );
  const retried = await refusalOf(() => journal.recordFailure("e1", 2, "late", 1), "retry");
  expect(retried).toMatchObject({ code: "capability_denied" });
}

async function receiptsByOutcome({ journal, peer }: JournalSubject) {
  for (const id of ["sha", "size", "na", "comp"]) await journal.intend(intent(id), LEASE);
  await journal.markApplied("sha", 1, RECEIPT);
  const other = { ...RECEIPT, sha256: "f".repeat(64) };
  expect(await refusalOf(() => peer.markApplied("sha", 1, other), "sha")).toMatchObject({
    code: "capability_denied",
  });
  await journal.markApplied("size", 1, RECEIPT);
  expect(
    await refusalOf(() => peer.markApplied("size", 1, { ...RECEIPT, size: 2 }), "size"),
  ).toMatchObject({ code: "capability_denied" });
  await journal.markApplied("na", 1, RECEIPT);
  expect((await journal.settle("na", 1, "not_applied", RECEIPT)).receipt).toBeUndefined();
  await journal.markApplied("comp", 1, RECEIPT);
  const explicit = { ...RECEIPT, version: 9 };
  expect((await journal.settle("comp", 1, "compensated", explicit)).receipt).toEqual(explicit);
  expect((await peer.get("na"))?.receipt).toBeUndefined();
}

export function refusalLaws(options: EffectJournalConformanceOptions, it: Register): void {
  it("refusals: every bad input is invalid_argument naming its field; inputs at the bounds are accepted", () =>
    withJournal(options, refusalsNameTheirField));
  it("refusals: not_found and capability_denied name the effect, its tokens or its phase", () =>
    withJournal(options, refusalsNameTheEffect));
  it("refusals: a receipt differing in digest or size is refused; not_applied keeps none, an outcome's own receipt wins", () =>
    withJournal(options, receiptsByOutcome));
}
