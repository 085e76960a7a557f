import { isArtifactError } from "@artifact-kit/core";
import fc from "fast-check";
import { expect } from "vitest";
import type { EffectIntent, EffectRecord } from "../types.js";
import {
  type EffectJournalConformanceOptions,
  expectCode,
  intendAll,
  intent,
  type JournalSubject,
  LEASE,
  RECEIPT,
  type Register,
  START,
  scatteredIds,
  withJournal as withSubject,
} from "./support.js";

/** The journal's own contract: phases, fencing, claims, failures, prune, bounds, input. */
export function journalLaws(options: EffectJournalConformanceOptions, it: Register): void {
  const withJournal = (
    run: (subject: JournalSubject, advance: (ms: number) => void) => Promise<void>,
  ) => withSubject(options, run);

  it("walks intended -> applied -> committed and keeps what recovery needs", () =>
    withJournal(async ({ journal, peer }) => {
      const intended = await journal.intend(intent("e1"), LEASE);
      expect(intended).toMatchObject({
        phase: "intended",
        attempts: 0,
        lease: { owner: "writer", fencingToken: 1, expiresAt: START + 1000 },
      });
      const applied = await journal.markApplied("e1", 1, RECEIPT);
      expect(applied).toMatchObject({ phase: "applied", receipt: RECEIPT });
      const committed = await journal.settle("e1", 1, "committed");
      expect(committed).toMatchObject({ phase: "committed", receipt: RECEIPT });
      expect(await peer.get("e1")).toEqual(committed);
      expect(committed.correlation).toEqual({ invocation: "inv-1", toolCall: "call-1" });
      expect(await journal.get("absent")).toBeUndefined();
    }));

  it("commits idempotently and refuses a different terminal outcome", () =>
    withJournal(async ({ journal }) => {
      await journal.intend(intent("e1"), LEASE);
      await journal.markApplied("e1", 1, RECEIPT);
      await journal.markApplied("e1", 1, RECEIPT);
      const first = await journal.settle("e1", 1, "committed");
      // A retried commit, even one whose lease was since superseded, is a no-op.
      expect(await journal.settle("e1", 7, "committed")).toEqual(first);
      await expectCode(journal.settle("e1", 1, "compensated"), "capability_denied");
      await expectCode(journal.markApplied("e1", 1, RECEIPT), "capability_denied");
      expect(await journal.get("e1")).toEqual(first);
    }));

  it("settles not_applied without a receipt, refuses committed without one", () =>
    withJournal(async ({ journal }) => {
      await journal.intend(intent("e1"), LEASE);
      await expectCode(journal.settle("e1", 1, "committed"), "invalid_argument");
      expect((await journal.get("e1"))?.phase).toBe("intended");
      expect(await journal.settle("e1", 1, "not_applied")).toMatchObject({
        phase: "not_applied",
      });
      await expectCode(journal.settle("absent", 1, "not_applied"), "not_found");
    }));

  it("refuses a second intent with the same effect id and keeps the first", () =>
    withJournal(async ({ journal, peer }) => {
      const first = await journal.intend(intent("e1"), LEASE);
      await expectCode(peer.intend(intent("e1", { name: "other" }), LEASE), "invalid_argument");
      expect(await journal.get("e1")).toEqual(first);
    }));

  it("of concurrent intents with one effect id, exactly one is recorded", () =>
    withJournal(async ({ journal, peer }) => {
      for (let round = 0; round < 20; round++) {
        const id = `race-${round}`;
        const outcomes = await Promise.allSettled(
          [journal, peer, journal, peer].map((handle, i) =>
            handle.intend(intent(id, { name: `writer-${i}` }), LEASE),
          ),
        );
        const won = outcomes.flatMap((outcome) =>
          outcome.status === "fulfilled" ? [outcome.value] : [],
        );
        expect(won.length, `round ${round}`).toBe(1);
        for (const outcome of outcomes) {
          if (outcome.status === "rejected") {
            expect(isArtifactError(outcome.reason, "invalid_argument")).toBe(true);
          }
        }
        expect(await peer.get(id)).toEqual(won[0]);
      }
    }));

  // A journal may remember what it wrote last to spare its next change a read; a change
  // made meanwhile through another handle must still win over that memory.
  it("judges every change on the stored record, not on what this handle wrote last", () =>
    withJournal(async ({ journal, peer }) => {
      const other = { ...RECEIPT, version: 2 };
      await journal.intend(intent("e1"), LEASE);
      await peer.markApplied("e1", 1, RECEIPT);
      // Committing needs the receipt the peer recorded; on the intent alone it is refused.
      expect(await journal.settle("e1", 1, "committed")).toMatchObject({
        phase: "committed",
        receipt: RECEIPT,
      });

      await journal.intend(intent("e2"), LEASE);
      await peer.settle("e2", 1, "not_applied");
      await expectCode(journal.markApplied("e2", 1, RECEIPT), "capability_denied");
      expect(await peer.get("e2")).toMatchObject({ phase: "not_applied" });

      await journal.intend(intent("e3"), LEASE);
      const applied = await peer.markApplied("e3", 1, RECEIPT);
      expect(await journal.markApplied("e3", 1, RECEIPT)).toEqual(applied);
      await expectCode(journal.markApplied("e3", 1, other), "capability_denied");
      expect(await journal.get("e3")).toEqual(applied);
    }));

  it("fences: a claim takes an expired lease with a new token; stale tokens are refused", () =>
    withJournal(async ({ journal, peer }, advance) => {
      await journal.intend(intent("e1"), LEASE);
      const claim = { leaseMs: 500, limit: 10, maxAttempts: 3 };
      expect(await peer.claimOrphans({ ...claim, owner: "r1" })).toEqual([]);
      advance(1000);
      const [first] = await journal.claimOrphans({ ...claim, owner: "r1" });
      expect(first?.lease).toEqual({ owner: "r1", expiresAt: START + 1500, fencingToken: 2 });
      expect(await peer.claimOrphans({ ...claim, owner: "r2" })).toEqual([]);
      advance(500);
      const [second] = await peer.claimOrphans({ ...claim, owner: "r2" });
      expect(second?.lease.fencingToken).toBe(3);
      await expectCode(journal.markApplied("e1", 1, RECEIPT), "capability_denied");
      await expectCode(journal.settle("e1", 2, "not_applied"), "capability_denied");
      await expectCode(journal.recordFailure("e1", 2, "late", 1), "capability_denied");
      expect(await peer.settle("e1", 3, "compensated", RECEIPT)).toMatchObject({
        phase: "compensated",
      });
    }));

  it("two reconcilers claiming at once take each orphan exactly once", () =>
    withJournal(async ({ journal, peer }, advance) => {
      const ids = Array.from({ length: 12 }, (_, index) => `o${index}`);
      for (const id of ids) await journal.intend(intent(id), LEASE);
      advance(1000);
      const claim = { leaseMs: 60_000, limit: 100, maxAttempts: 3 };
      const [mine, theirs] = await Promise.all([
        journal.claimOrphans({ ...claim, owner: "r1" }),
        peer.claimOrphans({ ...claim, owner: "r2" }),
      ]);
      const taken = [...(mine ?? []), ...(theirs ?? [])].map((record) => record.effectId).sort();
      expect(taken).toEqual([...ids].sort());
    }));

  it("claims at most `limit`, and never a settled effect", () =>
    withJournal(async ({ journal }, advance) => {
      for (const id of ["a", "b", "c"]) await journal.intend(intent(id), LEASE);
      await journal.settle("c", 1, "not_applied");
      advance(1000);
      const claim = { owner: "r", leaseMs: 100, maxAttempts: 3 };
      expect(await journal.claimOrphans({ ...claim, limit: 1 })).toHaveLength(1);
      expect(await journal.claimOrphans({ ...claim, limit: 10 })).toHaveLength(1);
      expect(await journal.claimOrphans({ ...claim, limit: 10 })).toEqual([]);
    }));

  it("records failures visibly, backs off, and stops at maxAttempts", () =>
    withJournal(async ({ journal }, advance) => {
      await journal.intend(intent("e1"), LEASE);
      advance(1000);
      const claim = { owner: "r", leaseMs: 100, limit: 10, maxAttempts: 2 };
      const [first] = (await journal.claimOrphans(claim)) as [EffectRecord];
      const failed = await journal.recordFailure(
        "e1",
        first.lease.fencingToken,
        "backend down",
        4000,
      );
      expect(failed).toMatchObject({ attempts: 1, lastError: "backend down", phase: "intended" });
      advance(3000);
      expect(await journal.claimOrphans(claim)).toEqual([]);
      advance(1000);
      const [second] = (await journal.claimOrphans(claim)) as [EffectRecord];
      await journal.recordFailure("e1", second.lease.fencingToken, "still down", 1);
      advance(10_000);
      expect(await journal.claimOrphans(claim)).toEqual([]);
      expect(await journal.get("e1")).toMatchObject({ attempts: 2, lastError: "still down" });
      expect((await journal.list()).map((record) => record.effectId)).toEqual(["e1"]);
    }));

  it("prunes only terminal effects older than olderThan, at most `limit` per call", () =>
    withJournal(async ({ journal }, advance) => {
      for (const id of ["t1", "t2", "t3", "t4"]) {
        await journal.intend(intent(id), LEASE);
        await journal.settle(id, 1, "not_applied");
      }
      await journal.intend(intent("open"), LEASE);
      advance(10);
      await journal.intend(intent("late"), LEASE);
      await journal.settle("late", 1, "not_applied");
      const olderThan = START + 5;
      expect(await journal.prune({ olderThan, limit: 3 })).toEqual({ pruned: 3 });
      expect(await journal.prune({ olderThan, limit: 3 })).toEqual({ pruned: 1 });
      expect(await journal.prune({ olderThan, limit: 3 })).toEqual({ pruned: 0 });
      const left = (await journal.list()).map((record) => record.effectId).sort();
      expect(left).toEqual(["late", "open"]);
      await expectCode(
        journal.prune({ olderThan, limit: journal.capabilities().limits.maxBatch + 1 }),
        "invalid_argument",
      );
    }));

  // More effects than a backend is likely to read in one page (a round 1,000), with ids
  // whose order differs from their creation order: a listing that loses a page boundary,
  // or stops after the first page, misses some.
  it(
    "lists every effect once, however many pages the backend reads them in",
    () =>
      withJournal(async ({ journal, peer }) => {
        const ids = scatteredIds("list", 2_100);
        await intendAll(journal, ids);
        const listed = (await peer.list()).map((record) => record.effectId);
        expect(listed.length).toBe(ids.length);
        expect(new Set(listed)).toEqual(new Set(ids));
      }),
    120_000,
  );

  it("reports its bounds and enforces them", () =>
    withJournal(async ({ journal }) => {
      const { limits } = journal.capabilities();
      expect(Object.isFrozen(journal.capabilities())).toBe(true);
      const longId = "x".repeat(limits.maxEffectIdBytes + 1);
      await expectCode(journal.intend(intent(longId), LEASE), "invalid_argument");
      const tooMany = Object.fromEntries(
        Array.from({ length: limits.maxCorrelationEntries + 1 }, (_, index) => [`k${index}`, "v"]),
      );
      await expectCode(
        journal.intend(intent("e1", { correlation: tooMany }), LEASE),
        "invalid_argument",
      );
      await expectCode(
        journal.intend(intent("e1"), { owner: "w", leaseMs: limits.maxLeaseMs + 1 }),
        "invalid_argument",
      );
      await expectCode(
        journal.claimOrphans({
          owner: "r",
          leaseMs: 1,
          limit: limits.maxBatch + 1,
          maxAttempts: 1,
        }),
        "invalid_argument",
      );
      const failed = await journal.intend(intent("e2"), LEASE);
      const long = await journal.recordFailure(
        "e2",
        failed.lease.fencingToken,
        "x".repeat(limits.maxErrorBytes * 2),
        1,
      );
      expect(new TextEncoder().encode(long.lastError).byteLength).toBeLessThanOrEqual(
        limits.maxErrorBytes,
      );
      expect((await journal.list()).map((record) => record.effectId)).toEqual(["e2"]);
    }));

  it("refuses bad input with invalid_argument and records nothing", () =>
    withJournal(async ({ journal }) => {
      const badIntent = fc.oneof(
        fc.constant({ ...intent("ok"), effectId: "" }),
        fc
          .string()
          .filter((id) => !/^[A-Za-z0-9_-]{1,128}$/.test(id))
          .map((effectId) => ({ ...intent("ok"), effectId })),
        fc.constant({ ...intent("ok"), operation: "move" }),
        fc.constant({ ...intent("ok"), requestDigest: "ABC" }),
        fc.constant({ ...intent("ok"), scope: { kind: "session", app: "a" } }),
        fc.constant({ ...intent("ok"), name: "../escape" }),
        fc.constant({ ...intent("ok"), operation: "delete" }),
        fc.constant({ ...intent("ok"), target: RECEIPT }),
        fc.constant({ ...intent("ok"), extra: 1 }),
        fc.constant({ ...intent("ok"), correlation: { id: 7 } }),
        fc.constant(null),
      );
      const badLease = fc.oneof(
        fc.constant({ owner: "", leaseMs: 10 }),
        fc.constant({ owner: "w", leaseMs: 0 }),
        fc.constant({ owner: "w", leaseMs: 1.5 }),
        fc.constant({ owner: "w", leaseMs: 10, extra: true }),
      );
      await fc.assert(
        fc.asyncProperty(badIntent, async (bad) => {
          await expectCode(journal.intend(bad as EffectIntent, LEASE), "invalid_argument");
        }),
        { numRuns: 40 },
      );
      await fc.assert(
        fc.asyncProperty(badLease, async (bad) => {
          await expectCode(journal.intend(intent("ok"), bad as typeof LEASE), "invalid_argument");
        }),
        { numRuns: 10 },
      );
      expect(await journal.list()).toEqual([]);
      await journal.intend(intent("e1"), LEASE);
      await expectCode(journal.markApplied("e1", 0, RECEIPT), "invalid_argument");
      await expectCode(
        journal.markApplied("e1", 1, { ...RECEIPT, sha256: "nope" }),
        "invalid_argument",
      );
      await expectCode(journal.settle("e1", 1, "done" as "committed"), "invalid_argument");
      await expectCode(journal.prune({ olderThan: -1, limit: 1 }), "invalid_argument");
      await expectCode(journal.recordFailure("e1", 1, "x", 0), "invalid_argument");
      expect(await journal.get("e1")).toMatchObject({
        phase: "intended",
        lease: { fencingToken: 1 },
      });
    }));

  it("fails every call with closed after close()", () =>
    withJournal(async ({ journal }) => {
      await journal.intend(intent("e1"), LEASE);
      await journal.close();
      await expectCode(journal.get("e1"), "closed");
      await expectCode(journal.intend(intent("e2"), LEASE), "closed");
      await expectCode(journal.settle("e1", 1, "not_applied"), "closed");
      await expectCode(journal.prune({ olderThan: START, limit: 1 }), "closed");
    }));
}
