import { scopeDigest } from "@artifact-kit/core";
import type { PostgresArtifactService } from "@artifact-kit/postgres";
import type pg from "pg";
import { BENCH_SCOPE } from "../kit-store.js";
import type { Workload } from "../measure.js";

/**
 * Seeds `count` live names straight into the adapter's own schema with one generate_series
 * INSERT (through the adapter, 100,000 puts would take minutes of setup): names
 * "name-000000".., each marked live, which is all listNames reads. The versions
 * and blocks tables are left empty, so the seeded names are for listing only.
 */
export async function seedNames(pool: pg.Pool, schema: string, count: number): Promise<void> {
  await pool.query(
    `INSERT INTO "${schema}".names (scope_key, name, high_water, live)
     SELECT $1, 'name-' || lpad(i::text, 6, '0'), 1, true FROM generate_series(1, $2) AS i`,
    [scopeDigest(BENCH_SCOPE), count],
  );
  await pool.query(`ANALYZE "${schema}".names`);
}

/** One page of 100 names after a cursor in the middle of the seeded names. */
export function listNamesWorkload(service: PostgresArtifactService, count: number): Workload {
  const cursor = `name-${String(Math.floor(count / 2)).padStart(6, "0")}`;
  return {
    run: async () => {
      const page = await service.listNames(BENCH_SCOPE, { limit: 100, cursor });
      if (page.items.length !== 100) throw new Error(`a page of ${page.items.length} names`);
    },
  };
}

/** The same page read with a raw keyset SELECT on the same table: the floor. */
export function rawListNamesWorkload(pool: pg.Pool, schema: string, count: number): Workload {
  const cursor = `name-${String(Math.floor(count / 2)).padStart(6, "0")}`;
  const key = scopeDigest(BENCH_SCOPE);
  return {
    run: async () => {
      const result = await pool.query(
        `SELECT name FROM "${schema}".names WHERE scope_key = $1 AND name > $2
         ORDER BY name LIMIT 100`,
        [key, cursor],
      );
      if (result.rows.length !== 100) throw new Error(`a page of ${result.rows.length} names`);
    },
  };
}
