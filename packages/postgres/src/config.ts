import {
  invalidArgument,
  validateOptionKeys,
  validatePositiveInteger,
  validateText,
} from "@artifact-kit/core";
import type { Pool } from "pg";

/** Bounds and defaults; every one is reported by `capabilities()`. */
export interface PostgresArtifactServiceBounds {
  /** Largest single artifact, in bytes (default 64 MiB, at most 256 MiB: a put is one bytea). */
  maxArtifactBytes?: number;
  /** Live bytes per scope (default 1 GiB). */
  maxScopeBytes?: number;
  /** Live bytes in the whole schema (default 64 GiB). */
  maxTotalBytes?: number;
  /** Live versions per scope (default 100,000). */
  maxScopeArtifacts?: number;
  /** Live versions in the whole schema (default 10,000,000). */
  maxTotalArtifacts?: number;
  /** Largest and default page of listNames / listVersions (default 1,000). */
  maxPageLimit?: number;
  /** Most versions the legacy `list` returns before result_limit_exceeded (default 1,000). */
  legacyListLimit?: number;
  /** An upload not written to for this long may be removed by `repair` (default 1 hour). */
  uploadLeaseMs?: number;
}

export interface PostgresArtifactServiceOptions extends PostgresArtifactServiceBounds {
  /** A `pg` Pool the caller owns: `close()` does not end it. */
  pool: Pool;
  /** The schema holding every table and function of the store (default "artifact_kit"). */
  schema?: string;
  /** Run the shipped migrations on open (default false: open checks the schema is current). */
  migrate?: boolean;
}

type PostgresBounds = Required<PostgresArtifactServiceBounds>;

export interface PostgresConfig extends PostgresBounds {
  pool: Pool;
  schema: string;
  migrate: boolean;
}

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

export const POSTGRES_DEFAULTS: Readonly<PostgresBounds> = Object.freeze({
  maxArtifactBytes: 64 * MiB,
  maxScopeBytes: GiB,
  maxTotalBytes: 64 * GiB,
  maxScopeArtifacts: 100_000,
  maxTotalArtifacts: 10_000_000,
  maxPageLimit: 1_000,
  legacyListLimit: 1_000,
  uploadLeaseMs: 60 * 60 * 1000,
});

/** A put travels as one bytea parameter; PostgreSQL's own ceiling is 1 GB, this keeps margin. */
export const MAX_ARTIFACT_BYTES_CEILING = 256 * MiB;

export const DEFAULT_SCHEMA = "artifact_kit";

const BOUND_KEYS = Object.keys(POSTGRES_DEFAULTS) as (keyof PostgresBounds)[];

export function resolvePostgresConfig(options: unknown): PostgresConfig {
  const given = validateOptionKeys(
    options,
    [...BOUND_KEYS, "pool", "schema", "migrate"],
    "postgresOptions",
  );
  const config: PostgresConfig = {
    ...POSTGRES_DEFAULTS,
    pool: resolvePool(given.pool),
    schema: given.schema === undefined ? DEFAULT_SCHEMA : validateSchemaName(given.schema),
    migrate: resolveFlag(given.migrate, "migrate"),
  };
  for (const key of BOUND_KEYS) {
    if (given[key] !== undefined) config[key] = validatePositiveInteger(given[key], key);
  }
  if (config.maxArtifactBytes > MAX_ARTIFACT_BYTES_CEILING) {
    throw invalidArgument("maxArtifactBytes", `must be at most ${MAX_ARTIFACT_BYTES_CEILING}`);
  }
  return config;
}

/** Duck-typed, since the peer dependency may be installed more than once. */
export function resolvePool(value: unknown): Pool {
  const candidate = value as Partial<Record<"connect" | "query", unknown>> | null | undefined;
  if (
    typeof candidate !== "object" ||
    candidate === null ||
    typeof candidate.connect !== "function" ||
    typeof candidate.query !== "function"
  ) {
    throw invalidArgument("pool", "must be a Pool of pg");
  }
  return value as Pool;
}

/**
 * A schema name is spliced into SQL (as a quoted identifier), so only a plain lowercase
 * identifier is accepted: no quoting rules to get wrong, and no name PostgreSQL would fold.
 */
function validateSchemaName(value: unknown): string {
  const schema = validateText(value, "schema", 63);
  if (!/^[a-z_][a-z0-9_]*$/.test(schema) || schema.startsWith("pg_")) {
    throw invalidArgument(
      "schema",
      "must be a lowercase identifier (a-z, 0-9, _; not starting with a digit or pg_)",
    );
  }
  return schema;
}

/** The schema as a quoted SQL identifier (validated names never hold a double quote). */
export const quoteSchema = (schema: string): string => `"${validateSchemaName(schema)}"`;

function resolveFlag(value: unknown, field: string): boolean {
  if (value === undefined) return false;
  if (typeof value !== "boolean") throw invalidArgument(field, "must be a boolean");
  return value;
}
