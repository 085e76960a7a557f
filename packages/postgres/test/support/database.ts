import { randomUUID } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";
import { PostgresArtifactService, type PostgresArtifactServiceBounds } from "../../src/index.js";

export const databaseUrl = (): string => inject("databaseUrl");

/** A pool of its own, as another host would have. */
export function newPool(max = 4): pg.Pool {
  return new pg.Pool({ connectionString: databaseUrl(), max });
}

/** A schema name no other test uses. */
export const freshSchema = (): string => `t_${randomUUID().replaceAll("-", "")}`;

/** A service over a new pool in a new, migrated schema; `dispose` drops both. */
export async function freshService(bounds: PostgresArtifactServiceBounds = {}): Promise<{
  service: PostgresArtifactService;
  pool: pg.Pool;
  schema: string;
  dispose: () => Promise<void>;
}> {
  const pool = newPool();
  const schema = freshSchema();
  const service = await PostgresArtifactService.open({ pool, schema, migrate: true, ...bounds });
  return {
    service,
    pool,
    schema,
    dispose: async () => {
      await service.close();
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pool.end();
    },
  };
}
