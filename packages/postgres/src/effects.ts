import { corruptArtifact, invalidArgument } from "@artifact-kit/core";
import {
  applyClaim,
  type ClaimRequest,
  type EffectRecord,
  isClaimable,
  JournalBase,
  type Stored,
} from "@artifact-kit/effects/backend";
import type { Pool, PoolClient } from "pg";
import { withClient, withTransaction } from "./client-loan.js";
import { DEFAULT_SCHEMA, quoteSchema, resolvePool } from "./config.js";
import { expectMigrated, migrate } from "./migrate.js";

export interface PostgresEffectJournalOptions {
  /** The caller's pool; the journal never ends it. */
  pool: Pool;
  /** The store's schema: the journal is its `effects` table (migration 2). */
  schema?: string;
  /** Create or upgrade the schema first (as PostgresArtifactService.open does). */
  migrate?: boolean;
  /** The time source for leases (ms since epoch); one clock for every host sharing it. */
  clock?: () => number;
}

/**
 * The phases not yet settled, as SQL: written out (not a parameter) so that the planner
 * matches the partial indexes of migration 2 (effects_orphans, effects_settled).
 */
const OPEN_PHASES = "('intended', 'applied')";
/** Rows one scan query returns: a listing of the whole journal is many such pages. */
const SCAN_PAGE_ROWS = 1000;

function parseRecord(effectId: string, text: string): EffectRecord {
  let record: EffectRecord;
  try {
    record = JSON.parse(text) as EffectRecord;
  } catch (error) {
    throw corruptArtifact(`effect ${effectId} is not JSON`, { effectId }, error);
  }
  if (record?.effectId !== effectId) {
    throw corruptArtifact(`effect ${effectId} names another effect`, { effectId });
  }
  return Object.freeze({ ...record, lease: Object.freeze({ ...record.lease }) });
}

/** The row's searchable columns, beside the record itself. */
function columns(record: EffectRecord): unknown[] {
  return [
    record.phase,
    record.lease.expiresAt,
    record.attempts,
    record.updatedAt,
    JSON.stringify(record),
  ];
}

/**
 * An effect journal for deployments on several hosts: a table in the artifact store's own
 * schema. Every change is a compare-and-swap on the row's revision; a claim locks the expired
 * orphans it takes with `FOR UPDATE SKIP LOCKED` in one transaction, so reconcilers on many
 * hosts each get different orphans without waiting on one another, and each claimed lease
 * carries a new fencing token that refuses the previous owner's writes.
 */
export class PostgresEffectJournal extends JournalBase {
  protected readonly durability = "durable" as const;
  readonly #pool: Pool;
  readonly #table: string;

  private constructor(pool: Pool, schema: string, clock?: () => number) {
    super(clock);
    this.#pool = pool;
    this.#table = `${quoteSchema(schema)}.effects`;
  }

  static async open(options: PostgresEffectJournalOptions): Promise<PostgresEffectJournal> {
    if (typeof options !== "object" || options === null) {
      throw invalidArgument("options", "must be an object with a pool");
    }
    const pool = resolvePool(options.pool);
    const schema = options.schema ?? DEFAULT_SCHEMA;
    quoteSchema(schema);
    if (options.migrate === true) await migrate(pool, schema);
    else await expectMigrated(pool, schema);
    return new PostgresEffectJournal(pool, schema, options.clock);
  }

  /** One statement on a client of our own loan (see client-loan.ts), not pool.query. */
  async #query<Row>(operation: string, sql: string, values: unknown[]): Promise<Row[]> {
    return withClient(this.#pool, `effect journal ${operation}`, async (client) => {
      return (await client.query(sql, values)).rows as Row[];
    });
  }

  protected async create(record: EffectRecord): Promise<boolean> {
    const rows = await this.#query(
      "intend",
      `INSERT INTO ${this.#table}
         (effect_id, revision, phase, lease_expires_at, attempts, updated_at, record)
       VALUES ($1, 1, $2, $3, $4, $5, $6) ON CONFLICT (effect_id) DO NOTHING RETURNING 1`,
      [record.effectId, ...columns(record)],
    );
    return rows.length === 1;
  }

  protected async read(effectId: string): Promise<Stored | undefined> {
    const rows = await this.#query<{ record: string; revision: string }>(
      "read",
      `SELECT record, revision FROM ${this.#table} WHERE effect_id = $1`,
      [effectId],
    );
    const row = rows[0];
    if (row === undefined) return undefined;
    return { record: parseRecord(effectId, row.record), revision: Number(row.revision) };
  }

  /** Every write is committed by the server before it answers: power loss is its concern. */
  protected async swap(effectId: string, revision: number, next: EffectRecord): Promise<boolean> {
    const rows = await this.#query(
      "write",
      `UPDATE ${this.#table} SET revision = revision + 1, phase = $3, lease_expires_at = $4,
         attempts = $5, updated_at = $6, record = $7
       WHERE effect_id = $1 AND revision = $2 RETURNING 1`,
      [effectId, revision, ...columns(next)],
    );
    return rows.length === 1;
  }

  protected async *ids(): AsyncIterable<string> {
    for await (const row of this.#rows()) yield row.effect_id;
  }

  /** The records themselves, a page per query, not a query per effect. */
  protected override async *records(): AsyncIterable<EffectRecord> {
    for await (const row of this.#rows()) yield parseRecord(row.effect_id, row.record);
  }

  /** Every row in effect id order, read in keyset pages of bounded size. */
  async *#rows(): AsyncIterable<{ effect_id: string; record: string }> {
    let after = "";
    for (;;) {
      const rows = await this.#query<{ effect_id: string; record: string }>(
        "scan",
        `SELECT effect_id, record FROM ${this.#table} WHERE effect_id > $1
         ORDER BY effect_id LIMIT $2`,
        [after, SCAN_PAGE_ROWS],
      );
      yield* rows;
      const last = rows.at(-1);
      if (last === undefined || rows.length < SCAN_PAGE_ROWS) return;
      after = last.effect_id;
    }
  }

  /** One statement over the settled-time index; rows another pruner holds are skipped. */
  protected override async pruneSettled(olderThan: number, limit: number): Promise<number> {
    const rows = await this.#query(
      "prune",
      `DELETE FROM ${this.#table} WHERE effect_id IN (
         SELECT effect_id FROM ${this.#table}
         WHERE phase NOT IN ${OPEN_PHASES} AND updated_at < $1
         ORDER BY updated_at LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING 1`,
      [olderThan, limit],
    );
    return rows.length;
  }

  protected async remove(effectId: string): Promise<boolean> {
    const rows = await this.#query(
      "prune",
      `DELETE FROM ${this.#table} WHERE effect_id = $1 RETURNING 1`,
      [effectId],
    );
    return rows.length > 0;
  }

  /** A transaction leaves nothing behind when it dies midway. */
  protected async sweep(): Promise<void> {}

  /** The pool is the caller's. */
  protected async release(): Promise<void> {}

  /**
   * Locks up to `limit` expired orphans, skipping rows another reconciler holds, and leases
   * them in the same transaction: no two claims ever take the same effect.
   */
  protected override async claim(claim: ClaimRequest): Promise<EffectRecord[]> {
    return withTransaction(this.#pool, "effect journal claim", (client) =>
      this.#lockAndLease(client, claim),
    );
  }

  /** The claim's statements, in its transaction. */
  async #lockAndLease(client: PoolClient, claim: ClaimRequest): Promise<EffectRecord[]> {
    const now = this.clock();
    const locked = await client.query<{ effect_id: string; record: string }>(
      `SELECT effect_id, record FROM ${this.#table}
       WHERE phase IN ${OPEN_PHASES} AND lease_expires_at <= $1 AND attempts < $2
       ORDER BY lease_expires_at LIMIT $3 FOR UPDATE SKIP LOCKED`,
      [now, claim.maxAttempts, claim.limit],
    );
    const claimed: EffectRecord[] = [];
    for (const row of locked.rows) {
      const record = parseRecord(row.effect_id, row.record);
      if (!isClaimable(record, claim, now)) continue;
      const next = applyClaim(record, claim, now);
      await client.query(
        `UPDATE ${this.#table} SET revision = revision + 1, phase = $2, lease_expires_at = $3,
           attempts = $4, updated_at = $5, record = $6 WHERE effect_id = $1`,
        [row.effect_id, ...columns(next)],
      );
      claimed.push(next);
    }
    return claimed;
  }
}
