import { randomUUID } from "node:crypto";
import {
  type ArtifactMeta,
  type ArtifactService,
  scopeDigest,
  TRANSFER_BLOCK_BYTES,
} from "@artifact-kit/core";
import type { ArtifactServiceConformanceOptions } from "@artifact-kit/core/conformance";
import type { Pool } from "pg";
import type { PostgresArtifactServiceBounds } from "./config.js";
import { PostgresArtifactService } from "./service.js";

// The conformance subjects of this adapter, for its own tests and the cross-adapter matrix
// alike: a schema per subject, reopen as a new pool on the same schema (as another host
// would be), corruption as a flipped stored byte.

export type PostgresSubjects = Pick<
  ArtifactServiceConformanceOptions,
  "create" | "createBounded" | "reopen" | "corruptData"
>;

/** Bounds small enough for the kit to drive each to its edge (byte bounds: multiples of 64). */
export const SMALL_POSTGRES_BOUNDS: Readonly<PostgresArtifactServiceBounds> = Object.freeze({
  maxArtifactBytes: 64,
  maxPageLimit: 3,
  legacyListLimit: 5,
  maxScopeBytes: 256,
  maxTotalBytes: 512,
  maxScopeArtifacts: 12,
  maxTotalArtifacts: 30,
});

interface Placement {
  readonly pool: Pool;
  readonly schema: string;
  readonly bounds: PostgresArtifactServiceBounds;
}

/** Subjects over pools from `newPool` (each subject and each reopen gets its own). */
export function postgresSubjects(
  newPool: () => Pool,
  small: PostgresArtifactServiceBounds = SMALL_POSTGRES_BOUNDS,
): PostgresSubjects {
  const placements = new WeakMap<ArtifactService, Placement>();
  const poolsOf = new Map<string, Pool[]>();
  const open = async (schema: string, bounds: PostgresArtifactServiceBounds, migrate: boolean) => {
    const pool = newPool();
    poolsOf.set(schema, [...(poolsOf.get(schema) ?? []), pool]);
    const service = await PostgresArtifactService.open({ pool, schema, migrate, ...bounds });
    placements.set(service, { pool, schema, bounds });
    return service;
  };
  const placementOf = (service: ArtifactService): Placement => {
    const placement = placements.get(service);
    if (!placement) throw new Error("a service these subjects did not create");
    return placement;
  };
  const subject = (bounds: PostgresArtifactServiceBounds) => async () => {
    const schema = `ak_test_${randomUUID().replaceAll("-", "")}`;
    return {
      service: await open(schema, bounds, true),
      cleanup: async () => {
        const cleaner = newPool();
        await cleaner.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await cleaner.end();
        // Reopening ended the older pools: only the last one is still open.
        const live = (poolsOf.get(schema) ?? []).filter((pool) => !pool.ended);
        await Promise.all(live.map((pool) => pool.end()));
        poolsOf.delete(schema);
      },
    };
  };
  return {
    create: subject({}),
    createBounded: subject(small),
    reopen: async (old) => {
      const { pool, schema, bounds } = placementOf(old);
      const reopened = await open(schema, bounds, false);
      await pool.end();
      return reopened;
    },
    corruptData: async (service, meta, offset) => {
      const { pool, schema } = placementOf(service);
      await flipStoredByte(pool, schema, meta, offset);
    },
  };
}

/** Flips the stored byte at `offset` of a published version's data, in its block row. */
export async function flipStoredByte(
  pool: Pool,
  schema: string,
  meta: Pick<ArtifactMeta, "scope" | "name" | "version">,
  offset: number,
): Promise<void> {
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
      Math.floor(offset / TRANSFER_BLOCK_BYTES),
      offset % TRANSFER_BLOCK_BYTES,
    ],
  );
  if (result.rowCount !== 1) throw new Error("no stored block to corrupt");
}
