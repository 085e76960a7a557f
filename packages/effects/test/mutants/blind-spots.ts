import { MemoryEffectJournal, reconcile } from "@artifact-kit/effects";
import {
  applyClaim,
  type ClaimRequest,
  type EffectJournal,
  type EffectRecord,
  isClaimable,
  isTerminal,
  type Stored,
} from "@artifact-kit/effects/backend";

// Journals and reconcilers with one bug each, of classes no earlier mutant named (issue 31's
// third hidden batch): what a claim does to the lease it takes over, what a failure or a
// settlement leaves behind, what a listing or a pass skips. Each is one wrong line of a real
// journal, written through the memory journal's storage primitives.

/** Rewrites each record a swap publishes; `stored` is what it replaces. */
abstract class RewritingJournal extends MemoryEffectJournal {
  protected abstract rewrite(stored: EffectRecord, next: EffectRecord): EffectRecord;

  protected override async swap(
    effectId: string,
    revision: number,
    next: EffectRecord,
    mustSurvivePowerLoss: boolean,
  ): Promise<boolean> {
    const stored = await this.read(effectId);
    const rewritten = stored ? this.rewrite(stored.record, next) : next;
    return super.swap(effectId, revision, Object.freeze(rewritten), mustSurvivePowerLoss);
  }
}

/** A claim stores the new token and expiry but keeps the previous owner's name. */
export class ClaimKeepsOldOwner extends RewritingJournal {
  protected rewrite(stored: EffectRecord, next: EffectRecord) {
    return next.lease.fencingToken > stored.lease.fencingToken
      ? { ...next, lease: Object.freeze({ ...next.lease, owner: stored.lease.owner }) }
      : next;
  }
}

/** A failure is stored under a new fencing token: its own writer can no longer settle it. */
export class FailureBumpsToken extends RewritingJournal {
  protected rewrite(stored: EffectRecord, next: EffectRecord) {
    return next.attempts > stored.attempts
      ? {
          ...next,
          lease: Object.freeze({ ...next.lease, fencingToken: next.lease.fencingToken + 1 }),
        }
      : next;
  }
}

/** A settled effect keeps the last failure's text. */
export class SettleKeepsLastError extends RewritingJournal {
  protected rewrite(stored: EffectRecord, next: EffectRecord) {
    return isTerminal(next) && stored.lastError !== undefined
      ? { ...next, lastError: stored.lastError }
      : next;
  }
}

/** A claim resets the failure count, so maxAttempts is never reached. */
export class ClaimResetsAttempts extends RewritingJournal {
  protected rewrite(stored: EffectRecord, next: EffectRecord) {
    return next.lease.fencingToken > stored.lease.fencingToken ? { ...next, attempts: 0 } : next;
  }
}

/** A claim stamps the effect's createdAt too. */
export class ClaimRestampsCreation extends RewritingJournal {
  protected rewrite(stored: EffectRecord, next: EffectRecord) {
    return next.lease.fencingToken > stored.lease.fencingToken
      ? { ...next, createdAt: next.updatedAt }
      : next;
  }
}

/** A failure's backoff is added to the old lease's end, not to the time of the failure. */
export class BackoffFromLeaseEnd extends RewritingJournal {
  protected rewrite(stored: EffectRecord, next: EffectRecord) {
    if (next.attempts <= stored.attempts) return next;
    const backoff = next.lease.expiresAt - next.updatedAt;
    const expiresAt = Math.max(stored.lease.expiresAt, next.updatedAt) + backoff;
    return { ...next, lease: Object.freeze({ ...next.lease, expiresAt }) };
  }
}

/** Claims with its own rule for the lease it takes; the rest as the real journal. */
abstract class LeasingJournal extends MemoryEffectJournal {
  protected abstract lease(record: EffectRecord, claim: ClaimRequest, now: number): EffectRecord;

  protected override async claim(claim: ClaimRequest): Promise<EffectRecord[]> {
    const claimed: EffectRecord[] = [];
    for await (const effectId of this.ids()) {
      if (claimed.length >= claim.limit) break;
      const stored = await this.read(effectId);
      const now = this.clock();
      if (!stored || !isClaimable(stored.record, claim, now)) continue;
      const next = Object.freeze(this.lease(stored.record, claim, now));
      if (await this.swap(effectId, stored.revision, next, true)) claimed.push(next);
    }
    return claimed;
  }
}

/** An owner taking back its own expired lease keeps the old fencing token. */
export class ReclaimKeepsToken extends LeasingJournal {
  protected lease(record: EffectRecord, claim: ClaimRequest, now: number) {
    const same = record.lease.owner === claim.owner;
    return {
      ...record,
      lease: Object.freeze({
        owner: claim.owner,
        expiresAt: now + claim.leaseMs,
        fencingToken: record.lease.fencingToken + (same ? 0 : 1),
      }),
      updatedAt: now,
    };
  }
}

/** A claim's lease is measured from the old lease's end, not from the claim. */
export class ClaimLeaseFromOldEnd extends LeasingJournal {
  protected lease(record: EffectRecord, claim: ClaimRequest, now: number) {
    return {
      ...record,
      lease: Object.freeze({
        owner: claim.owner,
        expiresAt: record.lease.expiresAt + claim.leaseMs,
        fencingToken: record.lease.fencingToken + 1,
      }),
      updatedAt: now,
    };
  }
}

/** Prune leaves not_applied effects forever (only committed and compensated age out). */
export class PruneKeepsNotApplied extends MemoryEffectJournal {
  protected override async pruneSettled(olderThan: number, limit: number): Promise<number> {
    let pruned = 0;
    for await (const effectId of this.ids()) {
      if (pruned >= limit) break;
      const stored: Stored | undefined = await this.read(effectId);
      const record = stored?.record;
      if (!record || !isTerminal(record) || record.phase === "not_applied") continue;
      if (record.updatedAt < olderThan && (await this.remove(effectId))) pruned++;
    }
    return pruned;
  }
}

/** `list` reads records in pages of 256 and loses the first of every page after the first. */
export class ListSkipsPageStarts extends MemoryEffectJournal {
  protected override async *records(): AsyncIterable<EffectRecord> {
    let i = 0;
    for await (const effectId of this.ids()) {
      if (i++ % 256 === 0 && i > 1) continue;
      const stored = await this.read(effectId);
      if (stored) yield stored.record;
    }
  }
}

/** `get` answers from a per-handle copy of what this handle last read or wrote. */
export class GetCachesRecords extends MemoryEffectJournal {
  readonly #seen = new Map<string, EffectRecord>();
  override async get(effectId: unknown): Promise<EffectRecord | undefined> {
    const cached = typeof effectId === "string" ? this.#seen.get(effectId) : undefined;
    if (cached) return cached;
    const record = await super.get(effectId);
    if (record && typeof effectId === "string") this.#seen.set(effectId, record);
    return record;
  }
}

/** A claim takes one effect past its limit and does not return it: it sits leased till expiry. */
export class ClaimsOnePastLimit extends MemoryEffectJournal {
  protected override async claim(claim: ClaimRequest): Promise<EffectRecord[]> {
    const claimed: EffectRecord[] = [];
    let taken = 0;
    for await (const effectId of this.ids()) {
      if (taken > claim.limit) break;
      const stored = await this.read(effectId);
      const now = this.clock();
      if (!stored || !isClaimable(stored.record, claim, now)) continue;
      const next = applyClaim(stored.record, claim, now);
      if (await this.swap(effectId, stored.revision, next, true)) {
        taken++;
        if (claimed.length < claim.limit) claimed.push(next);
      }
    }
    return claimed;
  }
}

/** `list` answers from a copy taken at its first call, refreshed only by this handle's intents. */
export class ListServesFirstSnapshot extends MemoryEffectJournal {
  #snapshot: EffectRecord[] | undefined;
  override async list(): Promise<EffectRecord[]> {
    this.#snapshot ??= await super.list();
    return [...this.#snapshot];
  }
  override async intend(intent: unknown, lease: unknown): Promise<EffectRecord> {
    const record = await super.intend(intent, lease);
    this.#snapshot = undefined;
    return record;
  }
}

export const BLIND_SPOT_JOURNALS: Readonly<Record<string, (clock: () => number) => EffectJournal>> =
  {
    "a claim keeps the old owner": (clock) => new ClaimKeepsOldOwner({ clock }),
    "a failure bumps the fencing token": (clock) => new FailureBumpsToken({ clock }),
    "a settled effect keeps its last error": (clock) => new SettleKeepsLastError({ clock }),
    "a claim resets attempts": (clock) => new ClaimResetsAttempts({ clock }),
    "a claim restamps createdAt": (clock) => new ClaimRestampsCreation({ clock }),
    "a backoff counts from the old lease's end": (clock) => new BackoffFromLeaseEnd({ clock }),
    "an owner's reclaim keeps its token": (clock) => new ReclaimKeepsToken({ clock }),
    "a claim's lease counts from the old lease's end": (clock) =>
      new ClaimLeaseFromOldEnd({ clock }),
    "prune keeps not_applied effects": (clock) => new PruneKeepsNotApplied({ clock }),
    "list skips the first effect of each page of 256": (clock) =>
      new ListSkipsPageStarts({ clock }),
    "get answers from a per-handle cache": (clock) => new GetCachesRecords({ clock }),
    "a claim leases one effect past its limit without returning it": (clock) =>
      new ClaimsOnePastLimit({ clock }),
    "list serves a snapshot that only intents refresh": (clock) =>
      new ListServesFirstSnapshot({ clock }),
  };

type Reconcile = typeof reconcile;

/** Runs the real pass with the handler wrapped. */
const withHandler =
  (
    wrap: (handler: Parameters<Reconcile>[1], journal: EffectJournal) => Parameters<Reconcile>[1],
  ): Reconcile =>
  (journal, handler, options) =>
    reconcile(journal, wrap(handler, journal), options);

export const BLIND_SPOT_RECONCILERS: Readonly<Record<string, Reconcile>> = {
  // The first failure ends the pass: the rest of the batch stays claimed, unjudged, until
  // its lease runs out.
  "the pass stops at its first failure": withHandler((handler) => {
    let failed = false;
    return {
      async reconcile(effect, signal) {
        if (failed) throw new Error("the pass was abandoned");
        return handler.reconcile(effect, signal).catch((error: unknown) => {
          failed = true;
          throw error;
        });
      },
    };
  }),
  // The report counts attempts before the failure, not with it.
  "the report's attempts leave out this failure": async (journal, handler, options) => {
    const report = await reconcile(journal, handler, options);
    return Object.freeze({
      ...report,
      failed: report.failed.map((failure) => ({ ...failure, attempts: failure.attempts - 1 })),
    });
  },
  // Deferred effects are reported as failed as well.
  "deferred effects are reported failed": async (journal, handler, options) => {
    const report = await reconcile(journal, handler, options);
    return Object.freeze({
      ...report,
      failed: [
        ...report.failed,
        ...report.deferred.map((effectId) => ({ effectId, attempts: 0, error: "deferred" })),
      ],
    });
  },
  // Every settled effect is reported committed, whatever the handler said.
  "the report calls every settlement committed": async (journal, handler, options) => {
    const report = await reconcile(journal, handler, options);
    return Object.freeze({
      ...report,
      settled: report.settled.map(({ effectId }) => ({
        effectId,
        outcome: "committed" as const,
      })),
    });
  },
  // A failure is recorded under the token the effect had before this pass claimed it: the
  // journal refuses it, the refusal is swallowed, and the effect never counts a failure.
  "a failure is recorded under the pre-claim token": (journal, handler, options) =>
    reconcile(
      new Proxy(journal, {
        get(target, key) {
          if (key === "recordFailure") {
            return (...args: Parameters<EffectJournal["recordFailure"]>) =>
              target.recordFailure(args[0], args[1] - 1, args[2], args[3]);
          }
          const value = Reflect.get(target, key, target);
          return typeof value === "function" ? value.bind(target) : value;
        },
      }),
      handler,
      options,
    ),
};
