import type { Scope } from "@artifact-kit/core";

/** `intended` -> `applied` -> `committed`, or a terminal `compensated` / `not_applied`. */
export const EFFECT_PHASES = [
  "intended",
  "applied",
  "committed",
  "compensated",
  "not_applied",
] as const;
export type EffectPhase = (typeof EFFECT_PHASES)[number];
export type TerminalPhase = "committed" | "compensated" | "not_applied";
export type EffectOperation = "put" | "delete";

/** What the journal keeps of a version: enough to find it again and check it, never bytes. */
export interface EffectReceipt {
  readonly version: number;
  readonly sha256: string;
  readonly size: number;
}

/** Who may change a non-terminal effect, until when, and the token its writes must carry. */
export interface EffectLease {
  readonly owner: string;
  readonly expiresAt: number;
  readonly fencingToken: number;
}

/** What a writer records before the external mutation. */
export interface EffectIntent {
  /** 1..128 characters of [A-Za-z0-9_-]; also the put's idempotency key. */
  readonly effectId: string;
  readonly operation: EffectOperation;
  readonly scope: Scope;
  readonly name: string;
  /** Lowercase hex SHA-256 of the request (data digest plus options). */
  readonly requestDigest: string;
  /** For a delete: the exact version it removes, as read just before the intent. */
  readonly target?: EffectReceipt;
  /** Opaque ids (invocation, tool call, ...), bounded by `maxCorrelationEntries`. */
  readonly correlation?: Readonly<Record<string, string>>;
}

export interface EffectRecord extends EffectIntent {
  readonly phase: EffectPhase;
  readonly receipt?: EffectReceipt;
  readonly lease: EffectLease;
  /** Failed reconciliation attempts so far. */
  readonly attempts: number;
  /** The last failure, kept visible until the effect settles. */
  readonly lastError?: string;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** The bounds a journal enforces; reported by `capabilities()`. */
export interface JournalLimits {
  readonly maxEffectIdBytes: number;
  readonly maxOwnerBytes: number;
  readonly maxCorrelationEntries: number;
  readonly maxCorrelationValueBytes: number;
  readonly maxErrorBytes: number;
  readonly maxLeaseMs: number;
  /** Most effects one `claimOrphans` or `prune` call returns or removes. */
  readonly maxBatch: number;
  /** Most records one `claimOrphans` or `prune` call examines. */
  readonly maxScan: number;
}

export interface JournalCapabilities {
  readonly durability: "volatile" | "durable";
  readonly limits: JournalLimits;
}

export interface LeaseRequest {
  readonly owner: string;
  readonly leaseMs: number;
}

export interface ClaimRequest extends LeaseRequest {
  readonly limit: number;
  /** Effects that failed this many times are left for an operator (still listed). */
  readonly maxAttempts: number;
}

export interface PruneRequest {
  /** Terminal effects last changed before this time (ms since epoch) are removed. */
  readonly olderThan: number;
  readonly limit: number;
}

/**
 * A durable record of external effects and their settlement. Every change to a non-terminal
 * effect carries the fencing token of the lease it was made under; a stale token is refused
 * with capability_denied, so an owner whose lease was taken over can no longer write.
 */
export interface EffectJournal {
  capabilities(): JournalCapabilities;
  /** Records the intent, leased to `lease.owner` with fencing token 1. The id must be new. */
  intend(intent: EffectIntent, lease: LeaseRequest): Promise<EffectRecord>;
  /** `intended` -> `applied` with the receipt. Repeating it with the same receipt is a no-op. */
  markApplied(
    effectId: string,
    fencingToken: number,
    receipt: EffectReceipt,
  ): Promise<EffectRecord>;
  /**
   * A non-terminal effect -> `outcome`. `committed` and `compensated` need a receipt (the
   * applied one is used when none is given). Settling again with the same outcome is a no-op
   * whatever the token; another outcome is refused.
   */
  settle(
    effectId: string,
    fencingToken: number,
    outcome: TerminalPhase,
    receipt?: EffectReceipt,
  ): Promise<EffectRecord>;
  /** Leases up to `limit` non-terminal effects whose lease has expired, each with a new token. */
  claimOrphans(request: ClaimRequest): Promise<EffectRecord[]>;
  /** Records a failed attempt and holds the effect back for `retryAfterMs` (1..maxLeaseMs). */
  recordFailure(
    effectId: string,
    fencingToken: number,
    error: string,
    retryAfterMs: number,
  ): Promise<EffectRecord>;
  get(effectId: string): Promise<EffectRecord | undefined>;
  /** Every effect, for audits and tests; fails with result_limit_exceeded past `maxScan`. */
  list(): Promise<EffectRecord[]>;
  /** Removes up to `limit` terminal effects last changed before `olderThan`. */
  prune(request: PruneRequest): Promise<{ pruned: number }>;
  close(): Promise<void>;
}
