import { invalidArgument, isArtifactError } from "@artifact-kit/core";
import { MemoryEffectJournal } from "@artifact-kit/effects";
import {
  applyClaim,
  type ClaimRequest,
  type EffectIntent,
  type EffectJournal,
  type EffectRecord,
  isClaimable,
  isTerminal,
} from "@artifact-kit/effects/backend";

// Journals with one bug each, every one of which passed the kit before its time, scale and
// value-domain laws: the kit's mutant test checks both.

/** Scans ids and takes each claimable one; `now` and `scanned` are where the bugs go. */
abstract class ClaimingJournal extends MemoryEffectJournal {
  protected abstract claimableAt(now: number): number;
  protected maxScanned = Number.POSITIVE_INFINITY;

  protected override async claim(claim: ClaimRequest): Promise<EffectRecord[]> {
    const claimed: EffectRecord[] = [];
    let scanned = 0;
    for await (const effectId of this.ids()) {
      if (claimed.length >= claim.limit || ++scanned > this.maxScanned) break;
      const stored = await this.read(effectId);
      const now = this.clock();
      if (!stored || !isClaimable(stored.record, claim, this.claimableAt(now))) continue;
      const next = applyClaim(stored.record, claim, now);
      if (await this.swap(effectId, stored.revision, next, true)) claimed.push(next);
    }
    return claimed;
  }
}

/** A lease is claimable one millisecond before it ends. */
export class ClaimsOneMsEarly extends ClaimingJournal {
  protected claimableAt(now: number) {
    return now + 1;
  }
}

/** A claim looks at the first page of 1,000 effects only. */
export class ClaimScansOnePage extends ClaimingJournal {
  protected override maxScanned = 1000;
  protected claimableAt(now: number) {
    return now;
  }
}

/** Prunes what `keep` rejects among terminal effects; the rest as the real journal does. */
abstract class PruningJournal extends MemoryEffectJournal {
  protected abstract prunable(record: EffectRecord, olderThan: number): boolean;

  protected override async pruneSettled(olderThan: number, limit: number): Promise<number> {
    let pruned = 0;
    for await (const effectId of this.ids()) {
      if (pruned >= limit) break;
      const stored = await this.read(effectId);
      if (!stored || !isTerminal(stored.record) || !this.prunable(stored.record, olderThan)) {
        continue;
      }
      await this.remove(effectId);
      pruned++;
    }
    return pruned;
  }
}

/** An effect last changed exactly at `olderThan` is pruned too. */
export class PrunesAtTheEdge extends PruningJournal {
  protected prunable(record: EffectRecord, olderThan: number) {
    return record.updatedAt <= olderThan;
  }
}

/** An effect's age counts from its intent, not from its last change. */
export class PrunesByCreation extends PruningJournal {
  protected prunable(record: EffectRecord, olderThan: number) {
    return record.createdAt < olderThan;
  }
}

/** Counts every effect it tried to remove, also those another pruner removed first. */
export class PruneCountsOthersRemovals extends PruningJournal {
  protected prunable(record: EffectRecord, olderThan: number) {
    return record.updatedAt < olderThan;
  }
}

/** Forwards every call; each mutant below overrides the one thing it breaks. */
class ForwardingJournal implements EffectJournal {
  constructor(protected readonly inner: EffectJournal) {}
  capabilities() {
    return this.inner.capabilities();
  }
  intend(intent: EffectIntent, lease: Parameters<EffectJournal["intend"]>[1]) {
    return this.inner.intend(intent, lease);
  }
  markApplied(...args: Parameters<EffectJournal["markApplied"]>) {
    return this.inner.markApplied(...args);
  }
  settle(...args: Parameters<EffectJournal["settle"]>) {
    return this.inner.settle(...args);
  }
  claimOrphans(...args: Parameters<EffectJournal["claimOrphans"]>) {
    return this.inner.claimOrphans(...args);
  }
  recordFailure(...args: Parameters<EffectJournal["recordFailure"]>) {
    return this.inner.recordFailure(...args);
  }
  get(effectId: string) {
    return this.inner.get(effectId);
  }
  list() {
    return this.inner.list();
  }
  prune(...args: Parameters<EffectJournal["prune"]>) {
    return this.inner.prune(...args);
  }
  close() {
    return this.inner.close();
  }
}

/** Correlation ids are copied by assignment, which drops a key named "__proto__". */
export class AssignsCorrelation extends ForwardingJournal {
  override intend(intent: EffectIntent, lease: Parameters<EffectJournal["intend"]>[1]) {
    if (intent?.correlation === undefined) return this.inner.intend(intent, lease);
    const copy: Record<string, string> = {};
    for (const [key, value] of Object.entries(intent.correlation)) copy[key] = value;
    return this.inner.intend({ ...intent, correlation: copy }, lease);
  }
}

/** Effect ids are told apart ignoring case, as files on a case-insensitive disk would be. */
export class CaseInsensitiveIds extends ForwardingJournal {
  readonly #seen = new Set<string>();
  override async intend(intent: EffectIntent, lease: Parameters<EffectJournal["intend"]>[1]) {
    const folded = typeof intent?.effectId === "string" ? intent.effectId.toLowerCase() : "";
    if (this.#seen.has(folded)) {
      throw invalidArgument("effectId", `effect ${intent.effectId} is already recorded`);
    }
    const record = await this.inner.intend(intent, lease);
    this.#seen.add(folded);
    return record;
  }
}

/** A closed handle answers a claim with nothing instead of refusing it. */
export class ClaimsAfterClose extends ForwardingJournal {
  override async claimOrphans(...args: Parameters<EffectJournal["claimOrphans"]>) {
    return this.inner.claimOrphans(...args).catch((error: unknown) => {
      if (isArtifactError(error, "closed")) return [];
      throw error;
    });
  }
}

export const JOURNAL_MUTANTS: Readonly<Record<string, (clock: () => number) => EffectJournal>> = {
  "a lease is claimable 1 ms early": (clock) => new ClaimsOneMsEarly({ clock }),
  "a claim scans one page of 1,000": (clock) => new ClaimScansOnePage({ clock }),
  "prune takes an effect changed at olderThan": (clock) => new PrunesAtTheEdge({ clock }),
  "prune ages from the intent": (clock) => new PrunesByCreation({ clock }),
  'correlation drops "__proto__"': (clock) =>
    new AssignsCorrelation(new MemoryEffectJournal({ clock })),
  "effect ids ignore case": (clock) => new CaseInsensitiveIds(new MemoryEffectJournal({ clock })),
  "prune counts effects another pruner removed": (clock) =>
    new PruneCountsOthersRemovals({ clock }),
  "a closed handle claims nothing instead of refusing": (clock) =>
    new ClaimsAfterClose(new MemoryEffectJournal({ clock })),
};
