import {
  type Artifact,
  type ArtifactMeta,
  type ArtifactService,
  type ArtifactTransfer,
  type Capabilities,
  checkArtifactSize,
  closedError,
  corruptArtifact,
  type DataDigest,
  Deadline,
  type DownloadOptions,
  type DownloadSource,
  defineCapabilities,
  digestData,
  digestDataInTurns,
  type GetOptions,
  idempotentVersionDeleted,
  invalidArgument,
  type ListNamesOptions,
  type ListVersionsOptions,
  type NamePage,
  notFound,
  type ParsedGet,
  type PutOptions,
  parseDelete,
  parseDownload,
  parseGet,
  parseListNames,
  parseListVersions,
  parsePut,
  parseScopeRequest,
  parseUpload,
  quotaExceeded,
  type RequestOptions,
  replayIdempotentPut,
  resolveRange,
  resultLimitExceeded,
  type Scope,
  scopeDigest,
  TRANSFER_BLOCK_BYTES,
  type UploadOptions,
  type UploadSink,
  unavailable,
  uploadSink,
  type VersionPage,
  validateOptionKeys,
  verifiedSource,
} from "@artifact-kit/core";
import {
  type PostgresArtifactServiceOptions,
  type PostgresConfig,
  quoteSchema,
  resolvePostgresConfig,
} from "./config.js";
import { Database, type Failure, REMAINING_MS, sqlState } from "./database.js";
import { expectMigrated, migrate } from "./migrate.js";
import {
  ownBytes,
  type StoredVersion,
  storedInteger,
  toMeta,
  toStoredVersion,
  type VersionRow,
  verifiedData,
} from "./rows.js";
import { namePageQuery, type Statements, statements } from "./statements.js";
import { StagedUpload } from "./upload.js";

/** What a publication stores beside the bytes, from a put or a finished upload. */
interface Publication {
  readonly scope: Scope;
  readonly name: string;
  readonly mimeType: string;
  readonly metadata: ArtifactMeta["metadata"];
  readonly idempotencyKey: string | undefined;
}

interface PublishedRow extends Omit<VersionRow, "idempotency_key"> {
  outcome: "published" | "replayed" | "deleted";
}

/** SQLSTATEs of the store's functions: a quota bound (message = its name), a lost upload. */
const QUOTA_EXCEEDED = "AKQ01";
const UPLOAD_REPAIRED = "AKU01";
const QUOTA_BOUNDS = [
  "maxScopeBytes",
  "maxTotalBytes",
  "maxScopeArtifacts",
  "maxTotalArtifacts",
] as const;

export interface RepairOptions {
  /** Remove uploads not written to for this many milliseconds (default: uploadLeaseMs). */
  olderThanMs?: number;
}

export interface RepairReport {
  /** Abandoned uploads removed, and their staged blocks. */
  readonly uploads: number;
  readonly blocks: number;
}

const REPAIR_BATCH = 100;

/**
 * Artifacts in PostgreSQL, shared by every host that opens the same schema. Each mutation is
 * one statement calling the schema's own function (migrations.ts): versions are allocated
 * under the name's row lock inside the publishing transaction, quotas are usage rows changed
 * under their locks, and the deadline is checked by the server right before commit. Data is
 * kept in blocks of TRANSFER_BLOCK_BYTES; every read checks size and SHA-256 (ranges: the
 * digests of the blocks they touch).
 */
export class PostgresArtifactService implements ArtifactService, ArtifactTransfer {
  readonly #config: PostgresConfig;
  readonly #capabilities: Capabilities;
  readonly #database: Database;
  readonly #sql: Statements;
  #closed = false;

  private constructor(config: PostgresConfig) {
    this.#config = config;
    this.#database = new Database(config.pool);
    this.#sql = statements(quoteSchema(config.schema));
    const {
      maxPageLimit,
      legacyListLimit,
      pool: _pool,
      schema: _schema,
      migrate: _m,
      ...bounds
    } = config;
    this.#capabilities = defineCapabilities({
      durability: "durable",
      maxPageLimit,
      legacyListLimit,
      quotas: { appliesTo: "global", bounds },
      transfer: { streamingUpload: true, streamingDownload: true, byteRanges: true },
    });
  }

  /**
   * Opens the store in `schema` over the caller's pool. With `migrate: true` the shipped
   * migrations run first; otherwise the schema must already be at this package's version.
   */
  static async open(options: PostgresArtifactServiceOptions): Promise<PostgresArtifactService> {
    const config = resolvePostgresConfig(options);
    if (config.migrate) await migrate(config.pool, config.schema);
    else await expectMigrated(config.pool, config.schema);
    return new PostgresArtifactService(config);
  }

  capabilities(): Capabilities {
    return this.#capabilities;
  }

  async put(
    scope: Scope,
    name: string,
    data: Uint8Array,
    options?: PutOptions,
  ): Promise<ArtifactMeta> {
    this.#ensureOpen();
    const request = parsePut(scope, name, data, options);
    request.deadline.check();
    checkArtifactSize(request.data.byteLength, this.#config.maxArtifactBytes);
    // A private copy: the caller may change its buffer while a connection is awaited, and
    // what is sent must be what was hashed. Large data is hashed a block per turn.
    const bytes = Buffer.from(request.data);
    const digest =
      bytes.byteLength > TRANSFER_BLOCK_BYTES ? await digestDataInTurns(bytes) : digestData(bytes);
    const rows = await this.#database.query<PublishedRow>(
      request.deadline,
      "put",
      this.#sql.put,
      [
        scopeDigest(request.scope),
        request.name,
        bytes,
        TRANSFER_BLOCK_BYTES,
        ...this.#publicationValues(request, digest),
        REMAINING_MS,
      ],
      this.#failure,
    );
    return this.#published(request, digest, rows);
  }

  async openUpload(scope: Scope, name: string, options?: UploadOptions): Promise<UploadSink> {
    this.#ensureOpen();
    const request = parseUpload(scope, name, options, this.#config.maxArtifactBytes);
    const [opened] = await this.#database.query<{ content_id: unknown }>(
      request.deadline,
      "openUpload",
      this.#sql.openUpload,
      [],
    );
    if (!opened) throw unavailable("openUpload: the server returned no upload id");
    const contentId = String(opened.content_id);
    const staged = new StagedUpload({
      database: this.#database,
      sql: this.#sql,
      contentId,
      deadline: request.deadline,
      publish: async (digest, deadline) => {
        this.#ensureOpen();
        const rows = await this.#database.query<PublishedRow>(
          deadline,
          "upload",
          this.#sql.publishUpload,
          [
            contentId,
            scopeDigest(request.scope),
            request.name,
            digest.size,
            ...this.#publicationValues(request, digest),
            REMAINING_MS,
          ],
          this.#failure,
        );
        return this.#published(request, digest, rows);
      },
    });
    return uploadSink(request, {
      write: async (chunk) => {
        this.#ensureOpen();
        await staged.write(chunk);
      },
      publish: (digest, deadline) => staged.publish(digest, deadline),
      discard: () => staged.discard(),
    });
  }

  async openDownload(
    scope: Scope,
    name: string,
    options?: DownloadOptions,
  ): Promise<DownloadSource> {
    this.#ensureOpen();
    const request = parseDownload(scope, name, options);
    const { stored, contentId } = await this.#head(request);
    const range = resolveRange(request.range, stored.meta.size);
    const readBlock = (index: number) => this.#readBlock(request, stored.meta, contentId, index);
    return verifiedSource({
      meta: stored.meta,
      blocks: stored.blocks,
      range,
      deadline: request.deadline,
      read: async function* (start, end) {
        for (let at = start; at < end; at += TRANSFER_BLOCK_BYTES) {
          yield await readBlock(at / TRANSFER_BLOCK_BYTES);
        }
      },
    });
  }

  async get(scope: Scope, name: string, options?: GetOptions): Promise<Artifact> {
    this.#ensureOpen();
    const request = parseGet(scope, name, options);
    const rows = await this.#database.query<
      VersionRow & { block_index: number | null; data: Buffer | null }
    >(
      request.deadline,
      "get",
      request.version === "latest" ? this.#sql.getLatest : this.#sql.getVersion,
      this.#versionKey(request),
    );
    const first = rows[0];
    if (!first) throw notFound(`artifact "${request.name}" version ${request.version}`);
    const meta = toMeta(request.scope, request.name, first);
    const blocks: Buffer[] = [];
    for (const row of rows) {
      if (row.data === null) continue;
      if (row.block_index !== blocks.length) {
        throw corruptArtifact(`block ${blocks.length} of version ${meta.version} is missing`, {
          version: meta.version,
        });
      }
      blocks.push(row.data);
    }
    return Object.freeze({ ...meta, data: verifiedData(meta, blocks) });
  }

  async head(scope: Scope, name: string, options?: GetOptions): Promise<ArtifactMeta> {
    this.#ensureOpen();
    return (await this.#head(parseGet(scope, name, options))).stored.meta;
  }

  async delete(
    scope: Scope,
    name: string,
    selector: number | "latest" | "all",
    options?: RequestOptions,
  ): Promise<void> {
    this.#ensureOpen();
    const request = parseDelete(scope, name, selector, options);
    const numbered = typeof request.selector === "number";
    const [row] = await this.#database.query<{ deleted: unknown }>(
      request.deadline,
      "delete",
      this.#sql.delete,
      [
        scopeDigest(request.scope),
        request.name,
        numbered ? "version" : request.selector,
        numbered ? request.selector : null,
        REMAINING_MS,
      ],
    );
    if (!row || storedInteger(row.deleted, "deleted count") === 0) {
      throw notFound(`artifact "${request.name}" (${request.selector})`);
    }
  }

  async listNames(scope: Scope, options?: ListNamesOptions): Promise<NamePage> {
    this.#ensureOpen();
    const request = parseListNames(scope, options, this.#config.maxPageLimit);
    const { statement, values } = namePageQuery(this.#sql, request);
    const rows = await this.#database.query<{ name: string }>(
      request.deadline,
      "listNames",
      statement,
      values,
    );
    const items = rows.slice(0, request.limit).map((row) => row.name);
    const last = items[items.length - 1];
    return rows.length > request.limit && last !== undefined
      ? { scope: request.scope, items, nextCursor: last }
      : { scope: request.scope, items };
  }

  async listVersions(
    scope: Scope,
    name: string,
    options?: ListVersionsOptions,
  ): Promise<VersionPage> {
    this.#ensureOpen();
    const request = parseListVersions(scope, name, options, this.#config.maxPageLimit);
    const rows = await this.#database.query<VersionRow>(
      request.deadline,
      "listVersions",
      this.#sql.listVersions,
      [scopeDigest(request.scope), request.name, request.cursor ?? 0, request.limit + 1],
    );
    const items = rows
      .slice(0, request.limit)
      .map((row) => toMeta(request.scope, request.name, row));
    const last = items[items.length - 1];
    return rows.length > request.limit && last !== undefined
      ? { items, nextCursor: last.version }
      : { items };
  }

  async list(scope: Scope, options?: RequestOptions): Promise<ArtifactMeta[]> {
    this.#ensureOpen();
    const request = parseScopeRequest(scope, options);
    const limit = this.#config.legacyListLimit;
    const rows = await this.#database.query<VersionRow & { name: string }>(
      request.deadline,
      "list",
      this.#sql.list,
      [scopeDigest(request.scope), limit + 1],
    );
    if (rows.length > limit) throw resultLimitExceeded("legacyListLimit", limit);
    return rows.map((row) => toMeta(request.scope, row.name, row));
  }

  /**
   * Removes uploads abandoned by crashed or vanished writers (no block staged for
   * `olderThanMs`, default uploadLeaseMs) with their staged blocks, in batches. Safe to run
   * from any host at any time: an upload that publishes meanwhile is never touched.
   */
  async repair(options?: RepairOptions): Promise<RepairReport> {
    this.#ensureOpen();
    const given = validateOptionKeys(options, ["olderThanMs"], "repairOptions");
    const olderThanMs = given.olderThanMs ?? this.#config.uploadLeaseMs;
    if (typeof olderThanMs !== "number" || !Number.isSafeInteger(olderThanMs) || olderThanMs < 0) {
      throw invalidArgument("olderThanMs", "must be a non-negative integer of milliseconds");
    }
    let uploads = 0;
    let blocks = 0;
    for (;;) {
      const [row] = await this.#database.query<{ uploads: unknown; blocks: unknown }>(
        Deadline.none,
        "repair",
        this.#sql.repairBatch,
        [olderThanMs, REPAIR_BATCH],
      );
      const removed = storedInteger(row?.uploads ?? "0", "uploads");
      uploads += removed;
      blocks += storedInteger(row?.blocks ?? "0", "blocks");
      if (removed < REPAIR_BATCH) return Object.freeze({ uploads, blocks });
    }
  }

  /** Marks the service closed; the pool is the caller's and stays open. */
  async close(): Promise<void> {
    this.#closed = true;
  }

  #ensureOpen(): void {
    if (this.#closed) throw closedError();
  }

  /** The values $5..$14 of put_artifact and publish_upload after the bytes. */
  #publicationValues(publication: Publication, digest: DataDigest): unknown[] {
    const { maxScopeBytes, maxTotalBytes, maxScopeArtifacts, maxTotalArtifacts } = this.#config;
    return [
      publication.mimeType,
      digest.sha256,
      digest.blocks,
      JSON.stringify(publication.metadata),
      publication.idempotencyKey ?? null,
      maxScopeBytes,
      maxTotalBytes,
      maxScopeArtifacts,
      maxTotalArtifacts,
    ];
  }

  #published(publication: Publication, digest: DataDigest, rows: PublishedRow[]): ArtifactMeta {
    const [row] = rows;
    if (!row) throw unavailable("publish: the server returned no version");
    if (row.outcome === "deleted") idempotentVersionDeleted(storedInteger(row.version, "version"));
    const meta = toMeta(publication.scope, publication.name, {
      ...row,
      idempotency_key: publication.idempotencyKey ?? null,
    });
    if (row.outcome === "replayed") {
      // Compared as stored: metadata travels as JSON text, where -0 is 0.
      const metadata = JSON.parse(JSON.stringify(publication.metadata));
      return replayIdempotentPut(meta, { ...publication, metadata, ...digest });
    }
    return meta;
  }

  readonly #failure: Failure = (error) => {
    const code = sqlState(error);
    if (code === UPLOAD_REPAIRED) {
      return unavailable("the upload's lease ran out and repair removed its staged blocks", error);
    }
    if (code !== QUOTA_EXCEEDED) return undefined;
    const bound = QUOTA_BOUNDS.find((candidate) => candidate === (error as Error).message);
    if (!bound) return undefined;
    return quotaExceeded(bound, this.#config[bound], `put would exceed ${bound}`);
  };

  #versionKey(request: ParsedGet): unknown[] {
    const key: unknown[] = [scopeDigest(request.scope), request.name];
    return request.version === "latest" ? key : [...key, request.version];
  }

  async #head(request: ParsedGet): Promise<{ stored: StoredVersion; contentId: string }> {
    const [row] = await this.#database.query<
      VersionRow & { content_id: unknown; block_digests: unknown }
    >(
      request.deadline,
      "head",
      request.version === "latest" ? this.#sql.headLatest : this.#sql.headVersion,
      this.#versionKey(request),
    );
    if (!row) throw notFound(`artifact "${request.name}" version ${request.version}`);
    return {
      stored: toStoredVersion(request.scope, request.name, row),
      contentId: String(row.content_id),
    };
  }

  /** One stored block; a block gone because the version was deleted meanwhile is not_found. */
  async #readBlock(
    request: ParsedGet,
    meta: ArtifactMeta,
    contentId: string,
    index: number,
  ): Promise<Uint8Array> {
    const [row] = await this.#database.query<{ data: Buffer }>(
      request.deadline,
      "download",
      this.#sql.block,
      [contentId, index],
    );
    if (row) return ownBytes(row.data);
    const live = await this.#database.query(request.deadline, "download", this.#sql.versionLive, [
      scopeDigest(request.scope),
      request.name,
      meta.version,
    ]);
    if (live.length === 0) {
      throw notFound(`artifact "${request.name}" version ${meta.version} (deleted while read)`);
    }
    throw corruptArtifact(`block ${index} of version ${meta.version} is missing`, {
      version: meta.version,
    });
  }
}
