import { randomUUID } from "node:crypto";
import { type ArtifactMeta, scopeDigest, TRANSFER_BLOCK_BYTES } from "@artifact-kit/core";
import type {
  ArtifactServiceConformanceOptions,
  ServiceSubject,
} from "@artifact-kit/core/conformance";
import type { Pool } from "pg";
import type { PostgresArtifactServiceBounds } from "./config.js";
import { PostgresArtifactService } from "./service.js";

// The conformance subjects of this adapter, for its own tests and the cross-adapter matrix
// alike: a schema per subject, reopen as a new pool on the same schema (as another host
// would be), corruption as a flipped stored byte.

export type PostgresSubjects = Pick<ArtifactServiceConformanceOptions, "create" | "createBounded">;

/** Small bounds for the kit to drive each to its edge (byte bounds: multiples of 64). */
const SMALL_POSTGRES_BOUNDS: Readonly<PostgresArtifactServiceBounds> = Object.freeze({
  maxArtifactBytes: 64,
  maxPageLimit: 3,
  legacyListLimit: 5,
  maxScopeBytes: 256,
  maxTotalBytes: 512,
  maxScopeArtifacts: 12,
  maxTotalArtifacts: 30,
});

/**
 * Subjects over pools from `newPool`: each subject is a schema of its own; reopen is a new
 * pool on the same schema (as another host would be, the previous pool ended); openAnother a
 * new pool on it while the first stays open; openNeighbour a service on another schema of the
 * same database (another tenant); corrupt flips a stored byte with SQL.
 */
export function postgresSubjects(
  newPool: () => Pool,
  small: PostgresArtifactServiceBounds = SMALL_POSTGRES_BOUNDS,
): PostgresSubjects {
  const subject = (bounds: PostgresArtifactServiceBounds) => async (): Promise<ServiceSubject> => {
    const schema = `ak_test_${randomUUID().replaceAll("-", "")}`;
    const neighbour = `${schema}_neighbour`;
    let pool = newPool();
    const service = await PostgresArtifactService.open({ pool, schema, migrate: true, ...bounds });
    // Pools of the instances openAnother opened: the kit closes those services, not the pools.
    const otherPools: Pool[] = [];
    return {
      service,
      reopen: async () => {
        await pool.end();
        pool = newPool();
        return PostgresArtifactService.open({ pool, schema, ...bounds });
      },
      openAnother: async () => {
        const other = newPool();
        otherPools.push(other);
        return PostgresArtifactService.open({ pool: other, schema, ...bounds });
      },
      openNeighbour: async () => {
        const other = newPool();
        otherPools.push(other);
        return PostgresArtifactService.open({ pool: other, schema: neighbour, migrate: true });
      },
      corrupt: (meta, offset) => flipStoredByte(pool, schema, meta, offset),
      cleanup: async () => {
        await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await pool.query(`DROP SCHEMA IF EXISTS "${neighbour}" CASCADE`);
        await Promise.all([pool, ...otherPools].map((each) => each.end()));
      },
    };
  };
  return { create: subject({}), createBounded: subject(small) };
}

/** Flips the stored byte at `offset` of a published version's data, in its block row. */
async function flipStoredByte(
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
