import { TRANSFER_BLOCK_BYTES } from "@artifact-kit/core";
import { migrate, PostgresArtifactService, SCHEMA_VERSION } from "../../src/index.js";
import { freshSchema } from "./database.js";
import { expectUnavailable, outcomeOf, type TrialContext } from "./trial-context.js";

// Opening and migrating under faults, and the recount that ends every trial run: the
// stored quota counters and each version's blocks against what the rows themselves say.

/** Opens a new service on the faulted pool: it opens, or fails with unavailable. */
export async function openTrial(ctx: TrialContext): Promise<void> {
  const outcome = await ctx.faulted("open", () =>
    PostgresArtifactService.open({ pool: ctx.pool, schema: ctx.schema }),
  );
  expectUnavailable(ctx, "open", outcome);
  if (outcome.ok) await outcome.value.close();
}

/**
 * Migrates the store's schema (nothing to do) or a new one (every migration) under a fault;
 * a clean migrate after it then finds the new schema complete or absent, never half made.
 */
export async function migrateTrial(ctx: TrialContext): Promise<void> {
  const fresh = ctx.random() < 0.3;
  const schema = fresh ? freshSchema() : ctx.schema;
  const what = `migrate ${fresh ? "a new schema" : "the store's schema"}`;
  const outcome = await ctx.faulted("migrate", () => migrate(ctx.pool, schema));
  expectUnavailable(ctx, what, outcome);
  const again = await outcomeOf(() => migrate(ctx.cleanPool, schema));
  // The store's schema was complete before; a new one is complete if the migrate committed.
  const possible = outcome.ok || !fresh ? [SCHEMA_VERSION] : [0, SCHEMA_VERSION];
  if (!again.ok) ctx.violation(`${what}: the clean migrate after it failed with ${again.code}`);
  else if (!possible.includes(again.value.from)) {
    ctx.violation(
      `${what}: ${outcome.ok ? "acknowledged" : "failed"}, left at ${again.value.from}`,
    );
  }
  if (fresh) await ctx.cleanPool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
}

/** What the recount found wrong: each count must be zero. */
export async function recount(ctx: TrialContext): Promise<Record<string, number>> {
  const s = `"${ctx.schema}"`;
  const live = `SELECT n.scope_key, coalesce(sum(v.size), 0) AS bytes, count(v.version) AS artifacts
    FROM ${s}.versions v JOIN ${s}.names n ON n.id = v.name_id GROUP BY n.scope_key`;
  const { rows } = await ctx.cleanPool.query(
    `SELECT
      (SELECT count(*) FROM ${s}.scope_usage u FULL JOIN (${live}) r USING (scope_key)
        WHERE coalesce(u.bytes, 0) <> coalesce(r.bytes, 0)
          OR coalesce(u.artifacts, 0) <> coalesce(r.artifacts, 0))::int AS "scope usage rows off",
      (SELECT count(*) FROM ${s}.totals t
        WHERE t.bytes <> (SELECT coalesce(sum(size), 0) FROM ${s}.versions)
          OR t.artifacts <> (SELECT count(*) FROM ${s}.versions))::int AS "totals off",
      (SELECT count(*) FROM ${s}.versions v WHERE
        (SELECT count(*) FROM ${s}.blocks b WHERE b.content_id = v.content_id)
          <> ceil(v.size::numeric / $1)
        OR (SELECT coalesce(sum(length(b.data)), 0) FROM ${s}.blocks b
          WHERE b.content_id = v.content_id) <> v.size)::int AS "versions with wrong blocks",
      (SELECT count(*) - count(DISTINCT content_id) FROM ${s}.versions)::int
        AS "versions sharing blocks",
      (SELECT count(*) FROM ${s}.blocks b
        WHERE NOT EXISTS (SELECT 1 FROM ${s}.versions v WHERE v.content_id = b.content_id)
          AND NOT EXISTS (SELECT 1 FROM ${s}.uploads u WHERE u.content_id = b.content_id))::int
        AS "blocks of nothing",
      (SELECT count(*) FROM ${s}.names n WHERE n.live
        <> EXISTS (SELECT 1 FROM ${s}.versions v WHERE v.name_id = n.id))::int AS "names live wrongly",
      (SELECT count(*) FROM (SELECT 1 FROM ${s}.versions WHERE idempotency_key IS NOT NULL
        GROUP BY name_id, idempotency_key HAVING count(*) > 1) k)::int AS "keys published twice"`,
    [TRANSFER_BLOCK_BYTES],
  );
  const found = rows[0] as Record<string, number>;
  return Object.fromEntries(Object.entries(found).filter(([, count]) => count !== 0));
}
