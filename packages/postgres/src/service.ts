import {
  type Capabilities,
  closedError,
  defineCapabilities,
  invalidArgument,
  validateOptionKeys,
} from "@artifact-kit/core";
import { AdapterService } from "@artifact-kit/core/adapter";
import {
  type PostgresArtifactServiceOptions,
  type PostgresConfig,
  resolvePostgresConfig,
} from "./config.js";
import { expectMigrated, migrate } from "./migrate.js";
import { guardPool } from "./pool-guard.js";
import { PostgresStore } from "./store.js";

export interface RepairOptions {
  /** Remove uploads not written to for this many milliseconds (default: uploadLeaseMs). */
  olderThanMs?: number;
}

export interface RepairReport {
  /** Abandoned uploads removed, and their staged blocks. */
  readonly uploads: number;
  readonly blocks: number;
}

function postgresCapabilities(config: PostgresConfig): Capabilities {
  const {
    maxPageLimit,
    legacyListLimit,
    pool: _pool,
    schema: _schema,
    migrate: _migrate,
    ...bounds
  } = config;
  return defineCapabilities({
    durability: "durable",
    maxPageLimit,
    legacyListLimit,
    quotas: { appliesTo: "global", bounds },
    transfer: { streamingUpload: true, streamingDownload: true, byteRanges: true },
  });
}

/**
 * Artifacts in PostgreSQL, shared by every host that opens the same schema. Each mutation is
 * one statement calling the schema's own function (migrations.ts): versions are allocated
 * under the name's row lock inside the publishing transaction, quotas are usage rows changed
 * under their locks, and the deadline is checked by the server right before commit. Data is
 * kept in blocks of TRANSFER_BLOCK_BYTES; every read checks size and SHA-256 (ranges: the
 * digests of the blocks they touch). Closing marks the service closed; the pool is the
 * caller's and stays open. While open, the service listens to the pool's 'error' event, so a
 * connection lost while idle in it never ends the process (pool-guard.ts).
 */
export class PostgresArtifactService extends AdapterService {
  readonly #config: PostgresConfig;
  readonly #store: PostgresStore;

  private constructor(config: PostgresConfig, unguard: () => void) {
    const store = new PostgresStore(config, unguard);
    super(store, postgresCapabilities(config));
    this.#config = config;
    this.#store = store;
  }

  /**
   * Opens the store in `schema` over the caller's pool. With `migrate: true` the shipped
   * migrations run first; otherwise the schema must already be at this package's version.
   */
  static async open(options: PostgresArtifactServiceOptions): Promise<PostgresArtifactService> {
    const config = resolvePostgresConfig(options);
    // From here to close(), an idle connection the server drops never ends the process.
    const unguard = guardPool(config.pool);
    try {
      if (config.migrate) await migrate(config.pool, config.schema);
      else await expectMigrated(config.pool, config.schema);
    } catch (error) {
      unguard();
      throw error;
    }
    return new PostgresArtifactService(config, unguard);
  }

  /**
   * Removes uploads abandoned by crashed or vanished writers (no block staged for
   * `olderThanMs`, default uploadLeaseMs) with their staged blocks, in batches. Safe to run
   * from any host at any time: an upload that publishes meanwhile is never touched.
   */
  async repair(options?: RepairOptions): Promise<RepairReport> {
    if (this.closed) throw closedError();
    const given = validateOptionKeys(options, ["olderThanMs"], "repairOptions");
    const olderThanMs = given.olderThanMs ?? this.#config.uploadLeaseMs;
    if (typeof olderThanMs !== "number" || !Number.isSafeInteger(olderThanMs) || olderThanMs < 0) {
      throw invalidArgument("olderThanMs", "must be a non-negative integer of milliseconds");
    }
    return Object.freeze(await this.#store.repair(olderThanMs));
  }
}
