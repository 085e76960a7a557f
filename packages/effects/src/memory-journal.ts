import { JournalBase, type Stored } from "./journal-base.js";
import type { EffectRecord } from "./types.js";

export interface MemoryJournalOptions {
  /** The time source (ms since epoch); tests move it to expire leases. */
  clock?: () => number;
}

/** A volatile journal for tests and ephemeral runtimes: gone with the process. */
export class MemoryEffectJournal extends JournalBase {
  protected readonly durability = "volatile" as const;
  readonly #records = new Map<string, Stored>();

  constructor(options: MemoryJournalOptions = {}) {
    super(options.clock);
  }

  protected async create(record: EffectRecord): Promise<boolean> {
    if (this.#records.has(record.effectId)) return false;
    this.#records.set(record.effectId, { record, revision: 1 });
    return true;
  }

  protected async read(effectId: string): Promise<Stored | undefined> {
    return this.#records.get(effectId);
  }

  protected async swap(
    effectId: string,
    revision: number,
    next: EffectRecord,
    _mustSurvivePowerLoss: boolean,
  ): Promise<boolean> {
    if (this.#records.get(effectId)?.revision !== revision) return false;
    this.#records.set(effectId, { record: next, revision: revision + 1 });
    return true;
  }

  protected async *ids(): AsyncIterable<string> {
    yield* [...this.#records.keys()];
  }

  protected async remove(effectId: string): Promise<boolean> {
    return this.#records.delete(effectId);
  }

  /** Nothing is ever left over in memory. */
  protected async sweep(): Promise<void> {}

  protected async release(): Promise<void> {
    this.#records.clear();
  }
}
