import { sha256Hex } from "@artifact-kit/core";
import fc from "fast-check";
import { expect } from "vitest";
import type { EffectIntent } from "../types.js";
import {
  correlationArb,
  effectIdArb,
  entriesOf,
  errorTextArb,
  nameArb,
  ownerArb,
  receiptArb,
  scopeArb,
  swapCase,
} from "./domain.js";
import {
  type EffectJournalConformanceOptions,
  intent,
  type JournalSubject,
  LEASE,
  type Register,
  withJournal,
} from "./support.js";

/** Property runs per law: each run writes through the subject, so a durable one is slower. */
const RUNS = 30;

/** Ids over the whole alphabet and length, and ids differing only by case, are all distinct. */
async function idsSpanTheDomain({ journal, peer }: JournalSubject) {
  const recorded = new Set<string>();
  await fc.assert(
    fc.asyncProperty(fc.uniqueArray(effectIdArb, { maxLength: 6 }), async (ids) => {
      const fresh = [...new Set(ids.flatMap((id) => [id, swapCase(id)]))].filter(
        (id) => !recorded.has(id),
      );
      for (const id of fresh) {
        const record = await journal.intend(intent(id), LEASE);
        recorded.add(id);
        expect(record.effectId).toBe(id);
        expect(await peer.get(id), `effect ${id} through the peer`).toEqual(record);
      }
    }),
    { numRuns: RUNS },
  );
  const listed = (await peer.list()).map((record) => record.effectId).sort();
  expect(listed).toEqual([...recorded].sort());
}

/** Every field of an intent comes back exactly as given, through either handle, in any phase. */
async function payloadsRoundTrip({ journal, peer }: JournalSubject) {
  let next = 0;
  const intentArb = fc.record({
    operation: fc.constantFrom("put" as const, "delete" as const),
    scope: scopeArb,
    name: nameArb,
    correlation: correlationArb,
    target: receiptArb,
  });
  await fc.assert(
    fc.asyncProperty(intentArb, ownerArb, receiptArb, async (given, owner, receipt) => {
      const effectId = `payload-${next++}`;
      const { target, ...rest } = given;
      const wanted: EffectIntent = {
        ...rest,
        effectId,
        requestDigest: sha256Hex(effectId),
        ...(given.operation === "delete" ? { target } : {}),
      };
      const record = await journal.intend(wanted, { owner, leaseMs: LEASE.leaseMs });
      expect(record.scope).toEqual(wanted.scope);
      expect([record.name, record.operation, record.target]).toEqual([
        wanted.name,
        wanted.operation,
        wanted.target,
      ]);
      expect(entriesOf(record.correlation), "correlation, own keys included").toEqual(
        entriesOf(wanted.correlation),
      );
      expect(record.lease.owner).toBe(owner);
      const stored = await peer.get(effectId);
      expect(stored).toEqual(record);
      expect(entriesOf(stored?.correlation)).toEqual(entriesOf(wanted.correlation));
      const applied = await peer.markApplied(effectId, 1, receipt);
      expect(applied.receipt).toEqual(receipt);
      const committed = await journal.settle(effectId, 1, "committed");
      expect(await peer.get(effectId)).toEqual(committed);
      expect(entriesOf(committed.correlation)).toEqual(entriesOf(wanted.correlation));
    }),
    { numRuns: RUNS },
  );
}

/** Any error text is recorded: well-formed, without NUL, within the bound, intact if it fits. */
async function errorTextIsAlwaysKept({ journal, peer }: JournalSubject) {
  const { maxErrorBytes } = journal.capabilities().limits;
  let next = 0;
  await fc.assert(
    fc.asyncProperty(errorTextArb, async (text) => {
      const effectId = `error-${next++}`;
      await journal.intend(intent(effectId), LEASE);
      const failed = await journal.recordFailure(effectId, 1, text, 1);
      const kept = failed.lastError ?? "";
      expect(kept.isWellFormed(), "a lone surrogate was kept").toBe(true);
      expect(kept.includes("\0"), "a NUL was kept").toBe(false);
      expect(Buffer.byteLength(kept, "utf8")).toBeLessThanOrEqual(maxErrorBytes);
      // What cannot be stored becomes U+FFFD, the rest is kept as it is.
      const storable = text.toWellFormed().replaceAll("\0", "\uFFFD");
      if (Buffer.byteLength(storable, "utf8") <= maxErrorBytes) expect(kept).toBe(storable);
      expect(await peer.get(effectId)).toEqual(failed);
    }),
    { numRuns: RUNS },
  );
}

export function domainLaws(options: EffectJournalConformanceOptions, it: Register): void {
  it("domain: effect ids over the whole alphabet and length, and case variants, are distinct effects", () =>
    withJournal(options, idsSpanTheDomain));
  it("domain: scopes, names, correlation ids (Object's own key names too), owners and receipts round-trip exactly", () =>
    withJournal(options, payloadsRoundTrip));
  it("domain: any error text is recorded well-formed, without NUL, within maxErrorBytes, intact when it fits", () =>
    withJournal(options, errorTextIsAlwaysKept));
}
