import { randomUUID } from "node:crypto";
import { type ArtifactService, scopeDigest } from "@artifact-kit/core";
import type { ArtifactServiceConformanceOptions } from "@artifact-kit/core/conformance";
import {
  PostgresArtifactService,
  type PostgresArtifactServiceBounds as PostgresBounds,
} from "@artifact-kit/postgres";
import pg from "pg";
import { inject } from "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
  }
}

/**
 * postgres on the server .ci/run (or the package's global setup) started: a schema per
 * subject; reopen is a new pool and service on the same schema, as another host would be;
 * corruption flips a stored byte with SQL.
 */
export function postgresSubjects(): Pick<
  ArtifactServiceConformanceOptions,
  "create" | "reopen" | "createBounded" | "corruptData"
> {
  const placements = new WeakMap<
    ArtifactService,
    { pool: pg.Pool; schema: string; bounds: PostgresBounds }
  >();
  const pools = new Map<string, pg.Pool[]>();
  const newPool = () => new pg.Pool({ connectionString: inject("databaseUrl"), max: 2 });
  const open = async (schema: string, bounds: PostgresBounds, migrate: boolean) => {
    const pool = newPool();
    pools.set(schema, [...(pools.get(schema) ?? []), pool]);
    const service = await PostgresArtifactService.open({ pool, schema, migrate, ...bounds });
    placements.set(service, { pool, schema, bounds });
    return service;
  };
  const placementOf = (service: ArtifactService) => {
    const placement = placements.get(service);
    if (!placement) throw new Error("a service the matrix did not create");
    return placement;
  };
  const subject = (bounds: PostgresBounds) => async () => {
    const schema = `matrix_${randomUUID().replaceAll("-", "")}`;
    return {
      service: await open(schema, bounds, true),
      cleanup: async () => {
        const cleaner = newPool();
        await cleaner.query(`DROP SCHEMA "${schema}" CASCADE`);
        await cleaner.end();
        const open = (pools.get(schema) ?? []).filter((pool) => !pool.ended);
        await Promise.all(open.map((pool) => pool.end()));
        pools.delete(schema);
      },
    };
  };
  return {
    create: subject({}),
    createBounded: subject({ maxArtifactBytes: 64, maxPageLimit: 3, legacyListLimit: 5 }),
    reopen: async (old) => {
      const { pool, schema, bounds } = placementOf(old);
      const reopened = await open(schema, bounds, false);
      await pool.end();
      return reopened;
    },
    corruptData: async (service, meta, offset) => {
      const { pool, schema } = placementOf(service);
      const s = `"${schema}"`;
      const result = await pool.query(
        `UPDATE ${s}.blocks b SET data = set_byte(b.data, $5, get_byte(b.data, $5) # 255)
         FROM ${s}.versions v JOIN ${s}.names n ON n.id = v.name_id
         WHERE n.scope_key = $1 AND n.name = $2 AND v.version = $3
           AND b.content_id = v.content_id AND b.block_index = $4`,
        [
          scopeDigest(meta.scope),
          meta.name,
          meta.version,
          Math.floor(offset / 1048576),
          offset % 1048576,
        ],
      );
      if (result.rowCount !== 1) throw new Error("no stored block to corrupt");
    },
  };
}
