import { join } from "node:path";
import { asArtifactError, invalidArgument } from "@artifact-kit/core";
import { EffectLog } from "./fs-log/effect-log.js";
import { carryOldLayout } from "./fs-log/legacy-layout.js";
import { JournalBase, type Stored } from "./journal-base.js";
import type { EffectRecord } from "./types.js";

export interface FsJournalOptions {
  /** The journal's directory; created if absent. Several processes may share it. */
  root: string;
  clock?: () => number;
}

/**
 * A journal durable on one host, shared by the processes that open its directory: an
 * append-only log (fs-log/effect-log.ts) in `<root>/log`. Each change is one append, and the
 * order of appends decides between racing changes, so an intent is one write and one
 * `fdatasync` and changes no directory; a change that need not survive a power loss
 * (intended -> applied) is not synced. Every process keeps the journal's records in memory
 * (replayed from the log when it opens), so memory grows with the effects not yet pruned; a
 * prune also compacts the log. A journal written by the layout before the log (one directory
 * per effect) is carried into it when opened (fs-log/legacy-layout.ts).
 */
export class FsEffectJournal extends JournalBase {
  protected readonly durability = "durable" as const;
  readonly #log: Promise<EffectLog>;

  constructor(options: FsJournalOptions) {
    const { root, clock } = options ?? {};
    if (typeof root !== "string" || root.length === 0) {
      throw invalidArgument("root", "must be a directory path");
    }
    super(clock);
    this.#log = EffectLog.open(join(root, "log")).then(async (log) => {
      try {
        await carryOldLayout(root, log);
      } catch (error) {
        await log.close().catch(() => {});
        throw error;
      }
      return log;
    });
    this.#log.catch(() => {}); // reported by the first call instead
  }

  async #io<T>(operation: string, run: (log: EffectLog) => Promise<T>): Promise<T> {
    try {
      return await run(await this.#log);
    } catch (error) {
      throw asArtifactError(error, `effect journal ${operation}`);
    }
  }

  protected create(record: EffectRecord): Promise<boolean> {
    return this.#io("intend", async (log) => {
      return (await log.append({ kind: "create", record }, true)) === "applied";
    });
  }

  protected read(effectId: string): Promise<Stored | undefined> {
    return this.#io("read", (log) => log.read(effectId));
  }

  protected swap(
    _effectId: string,
    revision: number,
    next: EffectRecord,
    mustSurvivePowerLoss: boolean,
  ): Promise<boolean> {
    return this.#io("write", async (log) => {
      const change = { kind: "swap", base: revision, record: next } as const;
      return (await log.append(change, mustSurvivePowerLoss)) === "applied";
    });
  }

  protected async *ids(): AsyncIterable<string> {
    for (const { record } of await this.#io("scan", (log) => log.snapshot())) {
      yield record.effectId;
    }
  }

  protected override async *records(): AsyncIterable<EffectRecord> {
    for (const { record } of await this.#io("scan", (log) => log.snapshot())) yield record;
  }

  /** Of processes pruning one effect at once, the first append wins; the others find it gone. */
  protected remove(effectId: string): Promise<boolean> {
    return this.#io("prune", async (log) => {
      return (await log.append({ kind: "remove", effectId }, true)) === "applied";
    });
  }

  /** Compacts the log when most of it is history, then removes what dead writers left. */
  protected sweep(olderThan: number, limit: number): Promise<void> {
    return this.#io("prune", async (log) => {
      await log.compact();
      await log.sweep(olderThan, limit);
    });
  }

  protected async release(): Promise<void> {
    await (await this.#log.catch(() => undefined))?.close();
  }
}
