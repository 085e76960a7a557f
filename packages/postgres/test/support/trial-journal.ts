import type { EffectRecord } from "@artifact-kit/effects";
import { PostgresEffectJournal } from "../../src/effects.js";
import { expectUnavailable, outcomeOf, pick, type TrialContext } from "./trial-context.js";

// The effect journal's operations in the fault trials: an intent recorded, orphans claimed,
// a claimed effect settled as committed. Each is judged on a journal over a clean connection:
// what was acknowledged is stored, what failed is stored whole or not at all, a settle
// retried with its token ends committed, and no fencing token ever goes back.

const RECEIPT = { version: 1, sha256: "0".repeat(64), size: 1 };
const CLAIM = { owner: "trial-reconciler", leaseMs: 600_000, limit: 3, maxAttempts: 100 };

export class JournalTrials {
  readonly #ctx: TrialContext;
  readonly #journal: PostgresEffectJournal;
  readonly #clean: PostgresEffectJournal;
  /** Effects this run's claims hold, by id, with the token each was claimed with. */
  readonly #held = new Map<string, number>();
  /** The highest fencing token seen per effect. */
  readonly #tokens = new Map<string, number>();
  #intents = 0;

  private constructor(
    ctx: TrialContext,
    journal: PostgresEffectJournal,
    clean: PostgresEffectJournal,
  ) {
    this.#ctx = ctx;
    this.#journal = journal;
    this.#clean = clean;
  }

  static async open(ctx: TrialContext): Promise<JournalTrials> {
    const journal = await PostgresEffectJournal.open({ pool: ctx.pool, schema: ctx.schema });
    const clean = await PostgresEffectJournal.open({ pool: ctx.cleanPool, schema: ctx.schema });
    return new JournalTrials(ctx, journal, clean);
  }

  /** An intent whose writer then vanishes: its lease of 1 ms makes it an orphan at once. */
  async intend(): Promise<void> {
    const effectId = `effect-${++this.#intents}`;
    const what = `intend ${effectId}`;
    const intent = {
      effectId,
      operation: "put" as const,
      scope: { kind: "app", app: "trials-journal" },
      name: "n",
      requestDigest: "0".repeat(64),
    };
    const outcome = await this.#ctx.faulted("intend", () =>
      this.#journal.intend(intent, { owner: "vanished-writer", leaseMs: 1 }),
    );
    const stored = await this.#read(effectId, what);
    if (outcome.ok ? stored?.phase !== "intended" : stored && stored.phase !== "intended") {
      this.#ctx.violation(
        `${what}: ${outcome.ok ? "acknowledged" : "failed"}, stored ${stored?.phase}`,
      );
    }
    expectUnavailable(this.#ctx, what, outcome);
  }

  /** Claims orphans; what an acknowledged claim returns is what is stored. */
  async claim(): Promise<void> {
    const outcome = await this.#ctx.faulted("claim", () => this.#journal.claimOrphans(CLAIM));
    expectUnavailable(this.#ctx, "claimOrphans", outcome);
    if (!outcome.ok) return;
    for (const record of outcome.value) {
      const stored = await this.#read(record.effectId, "claimOrphans");
      if (stored?.lease.fencingToken !== record.lease.fencingToken) {
        this.#ctx.violation(`claimOrphans: ${record.effectId} returned, but not stored as claimed`);
      }
      this.#held.set(record.effectId, record.lease.fencingToken);
    }
  }

  /** Settles a held effect as committed (or claims, when none is held). */
  async settle(): Promise<void> {
    if (this.#held.size === 0) return this.claim();
    const [effectId, token] = pick(this.#ctx.random, [...this.#held]);
    this.#held.delete(effectId);
    const what = `settle ${effectId}`;
    const settle = () => this.#journal.settle(effectId, token, "committed", RECEIPT);
    const outcome = await this.#ctx.faulted("settle", settle);
    expectUnavailable(this.#ctx, what, outcome);
    const stored = await this.#read(effectId, what);
    if (outcome.ok && stored?.phase !== "committed") {
      this.#ctx.violation(`${what}: acknowledged, stored ${stored?.phase}`);
    }
    if (outcome.ok) return;
    // The writer's retry with the same token ends committed, whether or not the first landed.
    const retried = await outcomeOf(settle);
    const settled = await this.#read(effectId, `${what}, retried`);
    if (!retried.ok || settled?.phase !== "committed") {
      this.#ctx.violation(`${what}: retried: ${retried.ok ? settled?.phase : retried.code}`);
    }
  }

  async close(): Promise<void> {
    await this.#journal.close();
    await this.#clean.close();
  }

  async #read(effectId: string, what: string): Promise<EffectRecord | undefined> {
    const stored = await this.#clean.get(effectId);
    if (stored === undefined) return undefined;
    const highest = this.#tokens.get(effectId) ?? 0;
    if (stored.lease.fencingToken < highest) {
      this.#ctx.violation(`${what}: the fencing token of ${effectId} went back`);
    }
    this.#tokens.set(effectId, Math.max(highest, stored.lease.fencingToken));
    return stored;
  }
}
