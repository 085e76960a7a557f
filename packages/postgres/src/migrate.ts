import { unavailable } from "@artifact-kit/core";
import type { Pool, PoolClient } from "pg";
import { withClient, withTransaction } from "./client-loan.js";
import { DEFAULT_SCHEMA, quoteSchema, resolvePool } from "./config.js";
import { MIGRATIONS, SCHEMA_VERSION } from "./migrations.js";

export interface MigrationReport {
  readonly schema: string;
  /** The schema version before and after; equal when there was nothing to do. */
  readonly from: number;
  readonly to: number;
}

/**
 * Creates or upgrades the store's schema to this package's version. Idempotent and safe to
 * run from many hosts at once: one transaction under an advisory lock per schema applies the
 * missing migrations in order, or none.
 */
export async function migrate(
  pool: Pool,
  schema: string = DEFAULT_SCHEMA,
): Promise<MigrationReport> {
  const quoted = quoteSchema(schema);
  return withTransaction(resolvePool(pool), "migrate", (client) =>
    applyMissing(client, schema, quoted),
  );
}

/** Applies the missing migrations, in order, in the caller's transaction. */
async function applyMissing(
  client: PoolClient,
  schema: string,
  quoted: string,
): Promise<MigrationReport> {
  await expectUtf8(client);
  await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [
    `artifact-kit:${schema}`,
  ]);
  await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoted}`);
  await client.query(
    `CREATE TABLE IF NOT EXISTS ${quoted}.migrations (version integer PRIMARY KEY,
      description text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
  );
  const from = await appliedVersion(client, quoted);
  if (from > SCHEMA_VERSION) throw newerSchema(schema, from);
  for (const migration of MIGRATIONS.filter((candidate) => candidate.version > from)) {
    await client.query(migration.sql(quoted));
    await client.query(`INSERT INTO ${quoted}.migrations (version, description) VALUES ($1, $2)`, [
      migration.version,
      migration.description,
    ]);
  }
  return Object.freeze({ schema, from, to: SCHEMA_VERSION });
}

/** Fails unless the schema exists at exactly this package's version. */
export async function expectMigrated(pool: Pool, schema: string): Promise<void> {
  await withClient(pool, "open", async (client) => {
    await expectUtf8(client);
    const exists = await client.query<{ found: boolean }>(
      "SELECT to_regclass($1) IS NOT NULL AS found",
      [`${quoteSchema(schema)}.migrations`],
    );
    const version = exists.rows[0]?.found ? await appliedVersion(client, quoteSchema(schema)) : 0;
    if (version > SCHEMA_VERSION) throw newerSchema(schema, version);
    if (version < SCHEMA_VERSION) {
      throw unavailable(
        `schema "${schema}" is at version ${version}, this package needs ${SCHEMA_VERSION}: ` +
          "run migrate() or open with { migrate: true }",
      );
    }
  });
}

async function appliedVersion(client: PoolClient, quoted: string): Promise<number> {
  const result = await client.query<{ version: number | null }>(
    `SELECT max(version) AS version FROM ${quoted}.migrations`,
  );
  return result.rows[0]?.version ?? 0;
}

/** Names sort by byte (COLLATE "C") only in a UTF-8 database; anything else is refused. */
async function expectUtf8(client: PoolClient): Promise<void> {
  const result = await client.query<{ server_encoding: string }>("SHOW server_encoding");
  const encoding = result.rows[0]?.server_encoding;
  if (encoding !== "UTF8") {
    throw unavailable(`the database encoding is ${encoding}; artifact-kit needs UTF8`);
  }
}

function newerSchema(schema: string, version: number) {
  return unavailable(
    `schema "${schema}" is at version ${version}, newer than this package's ${SCHEMA_VERSION}`,
  );
}
