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

/** Flips the stored byte at `offset` of a published version, straight in the blocks table. */
export async function flipStoredByte(
  pool: pg.Pool,
  schema: string,
  scopeKey: string,
  name: string,
  version: number,
  offset: number,
): Promise<void> {
  const block = Math.floor(offset / (1024 * 1024));
  const at = offset % (1024 * 1024);
  const result = await pool.query(
    `UPDATE "${schema}".blocks b SET data = set_byte(b.data, $5, get_byte(b.data, $5) # 255)
     FROM "${schema}".versions v JOIN "${schema}".names n ON n.id = v.name_id
     WHERE n.scope_key = $1 AND n.name = $2 AND v.version = $3
       AND b.content_id = v.content_id AND b.block_index = $4`,
    [scopeKey, name, version, block, at],
  );
  if (result.rowCount !== 1) throw new Error("no stored block to corrupt");
}
