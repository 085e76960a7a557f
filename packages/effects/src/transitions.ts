import { capabilityDenied, invalidArgument } from "@artifact-kit/core";
import type {
  ClaimRequest,
  EffectIntent,
  EffectReceipt,
  EffectRecord,
  LeaseRequest,
  TerminalPhase,
} from "./types.js";

// The journal's rules, once: every backend reads a record, asks these functions for the next
// one, and publishes it atomically (or retries when another writer got there first).

export function isTerminal(record: EffectRecord): boolean {
  return record.phase !== "intended" && record.phase !== "applied";
}

export function newRecord(intent: EffectIntent, lease: LeaseRequest, now: number): EffectRecord {
  return Object.freeze({
    ...intent,
    phase: "intended",
    lease: Object.freeze({ owner: lease.owner, expiresAt: now + lease.leaseMs, fencingToken: 1 }),
    attempts: 0,
    createdAt: now,
    updatedAt: now,
  });
}

function sameReceipt(a: EffectReceipt | undefined, b: EffectReceipt | undefined): boolean {
  return a?.version === b?.version && a?.sha256 === b?.sha256 && a?.size === b?.size;
}

function requireToken(record: EffectRecord, fencingToken: number): void {
  if (record.lease.fencingToken !== fencingToken) {
    throw capabilityDenied(
      `effect ${record.effectId} is leased under fencing token ${record.lease.fencingToken}, not ${fencingToken}`,
      { effectId: record.effectId, fencingToken, currentToken: record.lease.fencingToken },
    );
  }
}

function refuseSettled(record: EffectRecord, wanted: string): never {
  throw capabilityDenied(`effect ${record.effectId} is already ${record.phase}, not ${wanted}`, {
    effectId: record.effectId,
    phase: record.phase,
  });
}

/** The next record, or the same object when the change was already made (a no-op). */
export function applyMarkApplied(
  record: EffectRecord,
  fencingToken: number,
  receipt: EffectReceipt,
  now: number,
): EffectRecord {
  if (record.phase === "applied" && sameReceipt(record.receipt, receipt)) return record;
  if (record.phase !== "intended") refuseSettled(record, "applied");
  requireToken(record, fencingToken);
  return Object.freeze({ ...record, phase: "applied", receipt, updatedAt: now });
}

export function applySettle(
  record: EffectRecord,
  fencingToken: number,
  outcome: TerminalPhase,
  receipt: EffectReceipt | undefined,
  now: number,
): EffectRecord {
  if (record.phase === outcome) return record;
  if (isTerminal(record)) refuseSettled(record, outcome);
  requireToken(record, fencingToken);
  const kept = receipt ?? record.receipt;
  if (outcome !== "not_applied" && kept === undefined) {
    throw invalidArgument("receipt", `a ${outcome} effect records the version it concerns`);
  }
  const { receipt: _previous, lastError: _error, ...rest } = record;
  return Object.freeze({
    ...rest,
    phase: outcome,
    ...(outcome === "not_applied" || kept === undefined ? {} : { receipt: kept }),
    updatedAt: now,
  });
}

/** Whether a claim may take this record now. */
export function isClaimable(record: EffectRecord, claim: ClaimRequest, now: number): boolean {
  return (
    !isTerminal(record) && record.lease.expiresAt <= now && record.attempts < claim.maxAttempts
  );
}

export function applyClaim(record: EffectRecord, claim: LeaseRequest, now: number): EffectRecord {
  return Object.freeze({
    ...record,
    lease: Object.freeze({
      owner: claim.owner,
      expiresAt: now + claim.leaseMs,
      fencingToken: record.lease.fencingToken + 1,
    }),
    updatedAt: now,
  });
}

export function applyFailure(
  record: EffectRecord,
  fencingToken: number,
  error: string,
  retryAt: number,
  now: number,
): EffectRecord {
  if (isTerminal(record)) refuseSettled(record, "retried");
  requireToken(record, fencingToken);
  return Object.freeze({
    ...record,
    attempts: record.attempts + 1,
    lastError: error,
    lease: Object.freeze({ ...record.lease, expiresAt: retryAt }),
    updatedAt: now,
  });
}

export function isPrunable(record: EffectRecord, olderThan: number): boolean {
  return isTerminal(record) && record.updatedAt < olderThan;
}
