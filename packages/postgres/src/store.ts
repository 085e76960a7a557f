import {
  type ArtifactMeta,
  corruptArtifact,
  Deadline,
  type NamePage,
  notFound,
  resultLimitExceeded,
  type ScopePage,
  unavailable,
  type VersionPage,
} from "@artifact-kit/core";
// The hooks' request and result types by namespace, so their signatures read as the template's.
import type * as Adapter from "@artifact-kit/core/adapter";
import {
  type AdapterHooks,
  type DataDigest,
  scopeDigest,
  TRANSFER_BLOCK_BYTES,
} from "@artifact-kit/core/adapter";
import { type PostgresConfig, quoteSchema } from "./config.js";
import { Database, type Failure, REMAINING_MS } from "./database.js";
import {
  type PublishedRow,
  publicationFailure,
  publicationValues,
  publishedMeta,
} from "./publication.js";
import {
  ownBytes,
  type StoredVersion,
  storedInteger,
  toMeta,
  toStoredVersion,
  type VersionRow,
  verifiedData,
} from "./rows.js";
import { ScopeRows } from "./scopes.js";
import { namePageQuery, type Statements, statements } from "./statements.js";
import { StagedUpload } from "./upload.js";

/** Abandoned uploads one repair statement removes at most. */
const REPAIR_BATCH = 100;

/**
 * The postgres adapter's backend: each operation is one statement over the caller's pool,
 * each mutation a call of the schema's own function (migrations.ts). The template has
 * parsed, bounded, copied and digested what reaches it.
 */
export class PostgresStore implements AdapterHooks {
  readonly #config: PostgresConfig;
  readonly #database: Database;
  readonly #sql: Statements;
  readonly #failure: Failure;
  readonly #scopes: ScopeRows;
  readonly #unguard: () => void;

  /** `unguard` stops the service's watch of the pool's 'error' event (pool-guard.ts). */
  constructor(config: PostgresConfig, unguard: () => void) {
    this.#config = config;
    this.#unguard = unguard;
    this.#database = new Database(config.pool);
    this.#sql = statements(quoteSchema(config.schema));
    this.#scopes = new ScopeRows(this.#database, this.#sql);
    this.#failure = publicationFailure(config);
  }

  async publish(
    request: Adapter.ParsedPublication,
    bytes: Uint8Array,
    digest: DataDigest,
  ): Promise<ArtifactMeta> {
    await this.#scopes.record(request.scope, request.deadline, "put");
    // The deadline is checked right before the statement is sent, and by the server at commit.
    const rows = await this.#database.query<PublishedRow>(
      request.deadline,
      "put",
      this.#sql.put,
      [
        scopeDigest(request.scope),
        request.name,
        // A view, not a copy: the template's bytes are already private.
        Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
        TRANSFER_BLOCK_BYTES,
        ...publicationValues(this.#config, request, digest),
        REMAINING_MS,
      ],
      this.#failure,
    );
    return publishedMeta(request, digest, rows);
  }

  async beginUpload(request: Adapter.ParsedUpload): Promise<Adapter.UploadTarget> {
    await this.#scopes.record(request.scope, request.deadline, "upload");
    const [opened] = await this.#database.query<{ content_id: unknown }>(
      request.deadline,
      "openUpload",
      this.#sql.openUpload,
      [],
    );
    if (!opened) throw unavailable("openUpload: the server returned no upload id");
    const contentId = String(opened.content_id);
    return new StagedUpload({
      database: this.#database,
      sql: this.#sql,
      contentId,
      deadline: request.deadline,
      publish: async (digest, deadline) => {
        const rows = await this.#database.query<PublishedRow>(
          deadline,
          "upload",
          this.#sql.publishUpload,
          [
            contentId,
            scopeDigest(request.scope),
            request.name,
            digest.size,
            ...publicationValues(this.#config, request, digest),
            REMAINING_MS,
          ],
          this.#failure,
        );
        return publishedMeta(request, digest, rows);
      },
    });
  }

  async read(request: Adapter.ParsedGet): Promise<Adapter.StoredArtifact> {
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
    // Read fresh for this call, into memory of its own: the template may hand it out.
    return { meta, data: verifiedData(meta, blocks), shared: false };
  }

  async readMeta(request: Adapter.ParsedGet): Promise<ArtifactMeta> {
    return (await this.#head(request)).stored.meta;
  }

  async download(request: Adapter.ParsedGet): Promise<Adapter.StoredDownload> {
    const { stored, contentId } = await this.#head(request);
    const readBlock = (index: number) => this.#readBlock(request, stored.meta, contentId, index);
    return {
      meta: stored.meta,
      blocks: stored.blocks,
      read: async function* (start, end) {
        for (let at = start; at < end; at += TRANSFER_BLOCK_BYTES) {
          yield await readBlock(at / TRANSFER_BLOCK_BYTES);
        }
      },
    };
  }

  async remove(request: Adapter.ParsedDelete): Promise<void> {
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

  async names(request: Adapter.ParsedListNames): Promise<NamePage> {
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

  scopes(request: Adapter.ParsedListScopes): Promise<ScopePage> {
    return this.#scopes.page(request);
  }

  async versions(request: Adapter.ParsedListVersions): Promise<VersionPage> {
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

  async legacyList(request: Adapter.ParsedRequest): Promise<ArtifactMeta[]> {
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

  /** The pool is the caller's and stays open; only the watch of its 'error' event ends. */
  async closeBackend(): Promise<void> {
    this.#unguard();
  }

  /** Removes uploads idle for `olderThanMs` with their staged blocks, a batch at a time. */
  async repair(olderThanMs: number): Promise<{ uploads: number; blocks: number }> {
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
      if (removed < REPAIR_BATCH) return { uploads, blocks };
    }
  }

  #versionKey(request: Adapter.ParsedGet): unknown[] {
    const key: unknown[] = [scopeDigest(request.scope), request.name];
    return request.version === "latest" ? key : [...key, request.version];
  }

  async #head(request: Adapter.ParsedGet): Promise<{ stored: StoredVersion; contentId: string }> {
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
    request: Adapter.ParsedGet,
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
