import { type ArtifactService, scopeDigest } from "@artifact-kit/core";
import { describeArtifactService } from "@artifact-kit/core/conformance";
import type pg from "pg";
import { PostgresArtifactService, type PostgresArtifactServiceBounds } from "../src/index.js";
import { flipStoredByte, freshSchema, newPool } from "./support/database.js";

// Each subject gets its own schema and pool; `reopen` is a new service over a new pool on the
// same schema, as another host would be; corruption flips a stored byte with SQL.
interface Placement {
  pool: pg.Pool;
  schema: string;
  bounds: PostgresArtifactServiceBounds;
}
const placements = new WeakMap<ArtifactService, Placement>();
const poolsOf = new Map<string, pg.Pool[]>();

async function open(
  schema: string,
  bounds: PostgresArtifactServiceBounds,
  migrate: boolean,
): Promise<PostgresArtifactService> {
  const pool = newPool(2);
  const service = await PostgresArtifactService.open({ pool, schema, migrate, ...bounds });
  placements.set(service, { pool, schema, bounds });
  poolsOf.set(schema, [...(poolsOf.get(schema) ?? []), pool]);
  return service;
}

const placementOf = (service: ArtifactService): Placement => {
  const placement = placements.get(service);
  if (!placement) throw new Error("a service this suite did not create");
  return placement;
};

const subject = (bounds: PostgresArtifactServiceBounds) => async () => {
  const schema = freshSchema();
  const service = await open(schema, bounds, true);
  return {
    service,
    cleanup: async () => {
      const cleaner = newPool(1);
      await cleaner.query(`DROP SCHEMA "${schema}" CASCADE`);
      await cleaner.end();
      // Reopening ends the old service's pool: only the last one is still open.
      const open = (poolsOf.get(schema) ?? []).filter((pool) => !pool.ended);
      await Promise.all(open.map((pool) => pool.end()));
      poolsOf.delete(schema);
    },
  };
};

describeArtifactService("postgres", {
  create: subject({}),
  createBounded: subject({
    maxArtifactBytes: 64,
    maxPageLimit: 3,
    legacyListLimit: 5,
    maxScopeBytes: 256,
    maxTotalBytes: 512,
    maxScopeArtifacts: 12,
    maxTotalArtifacts: 30,
  }),
  reopen: async (old) => {
    const { pool, schema, bounds } = placementOf(old);
    const reopened = await open(schema, bounds, false);
    await pool.end();
    return reopened;
  },
  corruptData: async (service, meta, offset) => {
    const { pool, schema } = placementOf(service);
    await flipStoredByte(pool, schema, scopeDigest(meta.scope), meta.name, meta.version, offset);
  },
  numRuns: 50,
});
