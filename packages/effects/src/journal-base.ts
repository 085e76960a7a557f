import {
  closedError,
  invalidArgument,
  notFound,
  overloaded,
  resultLimitExceeded,
} from "@artifact-kit/core";
import { JOURNAL_LIMITS } from "./limits.js";
import {
  applyClaim,
  applyFailure,
  applyMarkApplied,
  applySettle,
  isClaimable,
  isPrunable,
  isTerminal,
  newRecord,
} from "./transitions.js";
import type {
  ClaimRequest,
  EffectJournal,
  EffectReceipt,
  EffectRecord,
  JournalCapabilities,
  TerminalPhase,
} from "./types.js";
import {
  boundedError,
  validateClaim,
  validateEffectId,
  validateFencingToken,
  validateIntent,
  validateLease,
  validateOutcome,
  validatePrune,
  validateReceipt,
  validateRetryAfter,
} from "./validate.js";

/** A stored record and the revision it was read at, for compare-and-swap. */
export interface Stored {
  readonly record: EffectRecord;
  readonly revision: number;
}

/** How many times a change is retried when other writers keep replacing the record first. */
const MAX_SWAP_RETRIES = 64;
/** Most records one journal remembers writing (see `#held`); the oldest is forgotten first. */
const MAX_HELD_RECORDS = 1024;

/** Only intended -> applied may be lost to a power cut: see `swap`. */
function mustSurvivePowerLoss(from: EffectRecord, to: EffectRecord): boolean {
  return !(from.phase === "intended" && to.phase === "applied");
}

/**
 * Everything a journal does, over a backend's four storage primitives. Inputs are validated
 * here once; the transition rules live in transitions.ts; a backend only stores records with
 * an atomic create and an atomic compare-and-swap.
 */
export abstract class JournalBase implements EffectJournal {
  #closed = false;
  /**
   * The records this journal last wrote, with their revisions. While a record's lease is
   * live only its holder changes it, so the holder's next change (markApplied after intend,
   * settle after markApplied) is first tried against this copy without reading: the swap is
   * a compare-and-swap, and losing it falls back to a read. Decisions other than a write
   * (a no-op, a refusal) are always made on a fresh read.
   */
  readonly #held = new Map<string, Stored>();
  protected abstract readonly durability: JournalCapabilities["durability"];
  protected readonly clock: () => number;

  constructor(clock: () => number = Date.now) {
    this.clock = clock;
  }

  /** Creates the record; false when the effect id is already taken. */
  protected abstract create(record: EffectRecord): Promise<boolean>;
  protected abstract read(effectId: string): Promise<Stored | undefined>;
  /**
   * Publishes `next` only if the record is still at `revision`; false when it is not.
   * `mustSurvivePowerLoss` false (only intended -> applied) lets a durable backend skip the
   * directory sync: losing that step falls back to `intended`, which the reconciler settles
   * the same way by observing the service.
   */
  protected abstract swap(
    effectId: string,
    revision: number,
    next: EffectRecord,
    mustSurvivePowerLoss: boolean,
  ): Promise<boolean>;
  /** Every effect id, in no particular order. */
  protected abstract ids(): AsyncIterable<string>;

  /**
   * Every effect's record, in no particular order. This default reads each id `ids()` gives;
   * a backend that can read records in bulk overrides it.
   */
  protected async *records(): AsyncIterable<EffectRecord> {
    for await (const effectId of this.ids()) {
      const stored = await this.read(effectId);
      if (stored !== undefined) yield stored.record;
    }
  }
  /**
   * Removes the effect; false when it was already gone (another handle or process pruned it
   * first), so that only the pruner that removed an effect counts it.
   */
  protected abstract remove(effectId: string): Promise<boolean>;
  /**
   * Removes up to `limit` leftovers of writes that died midway (staged files, half-pruned
   * effects) last touched before `olderThan`; nothing any record refers to.
   */
  protected abstract sweep(olderThan: number, limit: number): Promise<void>;
  protected abstract release(): Promise<void>;

  capabilities(): JournalCapabilities {
    return Object.freeze({ durability: this.durability, limits: JOURNAL_LIMITS });
  }

  #live(): void {
    if (this.#closed) throw closedError();
  }

  async intend(intent: unknown, lease: unknown): Promise<EffectRecord> {
    this.#live();
    const record = newRecord(validateIntent(intent), validateLease(lease), this.clock());
    if (!(await this.create(record))) {
      throw invalidArgument("effectId", `effect ${record.effectId} is already recorded`);
    }
    this.#hold({ record, revision: 1 });
    return record;
  }

  async markApplied(
    effectId: unknown,
    fencingToken: unknown,
    receipt: unknown,
  ): Promise<EffectRecord> {
    const token = validateFencingToken(fencingToken);
    const checked = validateReceipt(receipt);
    return this.#change(effectId, (record, now) => applyMarkApplied(record, token, checked, now));
  }

  async settle(
    effectId: unknown,
    fencingToken: unknown,
    outcome: unknown,
    receipt?: unknown,
  ): Promise<EffectRecord> {
    const token = validateFencingToken(fencingToken);
    const phase: TerminalPhase = validateOutcome(outcome);
    const checked: EffectReceipt | undefined =
      receipt === undefined ? undefined : validateReceipt(receipt);
    return this.#change(effectId, (record, now) => applySettle(record, token, phase, checked, now));
  }

  async recordFailure(
    effectId: unknown,
    fencingToken: unknown,
    error: unknown,
    retryAfterMs: unknown,
  ): Promise<EffectRecord> {
    const token = validateFencingToken(fencingToken);
    const backoff = validateRetryAfter(retryAfterMs);
    const message = boundedError(error);
    // The journal's own clock fixes the retry time, as it fixes every lease's expiry.
    return this.#change(effectId, (record, now) =>
      applyFailure(record, token, message, now + backoff, now),
    );
  }

  async claimOrphans(request: unknown): Promise<EffectRecord[]> {
    this.#live();
    return this.claim(validateClaim(request));
  }

  /**
   * Leases up to `claim.limit` claimable records. This default scans `ids()` and swaps each;
   * a backend with a better primitive (row locks that skip locked rows) overrides it.
   */
  protected async claim(claim: ClaimRequest): Promise<EffectRecord[]> {
    const claimed: EffectRecord[] = [];
    let scanned = 0;
    for await (const effectId of this.ids()) {
      if (claimed.length >= claim.limit || ++scanned > JOURNAL_LIMITS.maxScan) break;
      const stored = await this.read(effectId);
      const now = this.clock();
      if (stored === undefined || !isClaimable(stored.record, claim, now)) continue;
      const next = applyClaim(stored.record, claim, now);
      // Losing the swap means another reconciler claimed it (or its owner moved it) first.
      if (await this.swap(effectId, stored.revision, next, true)) {
        this.#hold({ record: next, revision: stored.revision + 1 });
        claimed.push(next);
      }
    }
    return claimed;
  }

  async get(effectId: unknown): Promise<EffectRecord | undefined> {
    this.#live();
    return (await this.read(validateEffectId(effectId)))?.record;
  }

  async list(): Promise<EffectRecord[]> {
    this.#live();
    const records: EffectRecord[] = [];
    for await (const record of this.records()) {
      if (records.length >= JOURNAL_LIMITS.maxScan) {
        throw resultLimitExceeded("maxScan", JOURNAL_LIMITS.maxScan);
      }
      records.push(record);
    }
    return records;
  }

  async prune(request: unknown): Promise<{ pruned: number }> {
    this.#live();
    const { olderThan, limit } = validatePrune(request);
    const pruned = await this.pruneSettled(olderThan, limit);
    await this.sweep(olderThan, limit);
    return { pruned };
  }

  /**
   * Removes up to `limit` settled effects last changed before `olderThan`; how many. This
   * default scans `ids()`; a backend with an index on the settled time overrides it.
   */
  protected async pruneSettled(olderThan: number, limit: number): Promise<number> {
    let pruned = 0;
    let scanned = 0;
    for await (const effectId of this.ids()) {
      if (pruned >= limit || ++scanned > JOURNAL_LIMITS.maxScan) break;
      const stored = await this.read(effectId);
      if (stored === undefined || !isPrunable(stored.record, olderThan)) continue;
      this.#held.delete(effectId);
      if (await this.remove(effectId)) pruned++;
    }
    return pruned;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#held.clear();
    await this.release();
  }

  async #change(
    effectId: unknown,
    next: (record: EffectRecord, now: number) => EffectRecord,
  ): Promise<EffectRecord> {
    this.#live();
    const id = validateEffectId(effectId);
    const held = this.#takeHeld(id);
    if (held !== undefined) {
      const written = await this.#tryWrite(held, next);
      if (written !== undefined) return written;
    }
    for (let attempt = 0; attempt < MAX_SWAP_RETRIES; attempt++) {
      const stored = await this.read(id);
      if (stored === undefined) throw notFound(`effect ${id}`, { effectId: id });
      const changed = next(stored.record, this.clock());
      if (changed === stored.record) return changed;
      if (await this.#swapAndHold(stored, changed)) return changed;
    }
    throw overloaded(
      `effect ${id} kept changing under this write`,
      "maxSwapRetries",
      MAX_SWAP_RETRIES,
    );
  }

  /** The change applied to a remembered record, if it is a write that won; else undefined. */
  async #tryWrite(
    held: Stored,
    next: (record: EffectRecord, now: number) => EffectRecord,
  ): Promise<EffectRecord | undefined> {
    let changed: EffectRecord;
    try {
      changed = next(held.record, this.clock());
    } catch {
      return undefined; // refused on the remembered copy: judged again on a fresh read
    }
    if (changed === held.record) return undefined;
    return (await this.#swapAndHold(held, changed)) ? changed : undefined;
  }

  async #swapAndHold(stored: Stored, changed: EffectRecord): Promise<boolean> {
    const { record, revision } = stored;
    const won = await this.swap(
      record.effectId,
      revision,
      changed,
      mustSurvivePowerLoss(record, changed),
    );
    if (won) this.#hold({ record: changed, revision: revision + 1 });
    return won;
  }

  #hold(stored: Stored): void {
    const { effectId } = stored.record;
    this.#held.delete(effectId);
    if (isTerminal(stored.record)) return;
    if (this.#held.size >= MAX_HELD_RECORDS) {
      this.#held.delete(this.#held.keys().next().value as string);
    }
    this.#held.set(effectId, stored);
  }

  /** The remembered record, while its lease is live (so nobody else may have changed it). */
  #takeHeld(effectId: string): Stored | undefined {
    const held = this.#held.get(effectId);
    this.#held.delete(effectId);
    return held !== undefined && held.record.lease.expiresAt > this.clock() ? held : undefined;
  }
}
