import { randomUUID } from "node:crypto";
import { lstat, realpath } from "node:fs/promises";
import { join } from "node:path";
import {
  type Artifact,
  type ArtifactMeta,
  type ArtifactService,
  type ArtifactTransfer,
  asArtifactError,
  type Capabilities,
  checkArtifactSize,
  closedError,
  compareNumbers,
  type DeleteSelector,
  type DownloadOptions,
  type DownloadSource,
  defineCapabilities,
  digestDataInTurns,
  type GetOptions,
  indexAfter,
  invalidArgument,
  type ListNamesOptions,
  type ListVersionsOptions,
  type NamePage,
  namePageStart,
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
  type RequestOptions,
  resolveRange,
  resultLimitExceeded,
  type Scope,
  scopeDigest,
  type UploadOptions,
  type UploadSink,
  uploadSink,
  type VersionPage,
  validateOptionKeys,
  validatePositiveInteger,
  verifiedSource,
} from "@artifact-kit/core";
import { VersionAllocator } from "./allocator.js";
import {
  type FsArtifactServiceOptions,
  type FsConfig,
  namesDirEntries,
  resolveFsConfig,
  validateMilliseconds,
} from "./config.js";
import { DirectoryCache } from "./dir-cache.js";
import {
  createDurably,
  createExclusive,
  isMissing,
  readFileRange,
  removeIfPossible,
  removeIfPresent,
  removeQuietly,
  syncDirectory,
} from "./io.js";
import { KeyBindings } from "./keys.js";
import { namePaths, type RootPaths, rootPaths, scopePaths, versionFile } from "./layout.js";
import { NameOrder } from "./name-order.js";
import { type Publisher, publish } from "./publication.js";
import { type RepairOptions, type RepairReport, repairTree } from "./repair.js";
import { Slots } from "./slots.js";
import { StagingFile } from "./staging-file.js";
import {
  liveVersions,
  openVersion,
  type ReadMode,
  readMeta,
  readVersion,
  unpublish,
  type VersionAddress,
} from "./version-files.js";

/**
 * Durable artifact service on one directory. Several processes may share a root: they race
 * only on exclusive file creation. See the package README for the protocol and guarantees.
 */
export class FsArtifactService implements ArtifactService, ArtifactTransfer {
  readonly #config: FsConfig;
  readonly #dirs: RootPaths;
  readonly #capabilities: Capabilities;
  readonly #slots: Slots;
  readonly #allocator: VersionAllocator;
  readonly #publisher: Publisher;
  readonly #names: NameOrder;
  readonly #versionLists = new DirectoryCache<readonly number[]>();
  #closed = false;

  private constructor(config: FsConfig) {
    this.#config = config;
    this.#dirs = rootPaths(config.root);
    this.#names = new NameOrder(config);
    this.#slots = new Slots(config, this.#dirs, this.#names);
    this.#allocator = new VersionAllocator(config);
    this.#publisher = { config, allocator: this.#allocator, keys: new KeyBindings(config) };
    const { maxArtifactBytes, maxScopes, maxNamesPerScope, maxVersionsPerName } = config;
    this.#capabilities = defineCapabilities({
      durability: "durable",
      maxPageLimit: config.maxPageLimit,
      legacyListLimit: config.legacyListLimit,
      quotas: {
        appliesTo: "global",
        bounds: { maxArtifactBytes, maxScopes, maxNamesPerScope, maxVersionsPerName },
      },
      transfer: { streamingUpload: true, streamingDownload: true, byteRanges: true },
    });
  }

  /**
   * Opens (and on first use lays out) the store under `options.root`, which must be an
   * absolute path to an existing directory that is not itself a symbolic link.
   */
  static async open(options: FsArtifactServiceOptions): Promise<FsArtifactService> {
    const config = resolveFsConfig(options);
    let root: string;
    try {
      const stats = await lstat(config.root);
      if (stats.isSymbolicLink()) throw invalidArgument("root", "is a symbolic link");
      if (!stats.isDirectory()) throw invalidArgument("root", "is not a directory");
      // Operate on the real path, so that re-pointing a symbolic link among the parents
      // later cannot move the store.
      root = await realpath(config.root);
    } catch (error) {
      if (isMissing(error)) throw invalidArgument("root", "does not exist");
      throw asArtifactError(error, "open");
    }
    const service = new FsArtifactService(Object.freeze({ ...config, root }));
    await service.#slots.layOut().catch((error: unknown) => {
      throw asArtifactError(error, "open");
    });
    return service;
  }

  /** The real path of the store's root directory. */
  get root(): string {
    return this.#config.root;
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
    const size = request.data.byteLength;
    checkArtifactSize(size, this.#config.maxArtifactBytes);
    // A private copy: the caller may change its buffer while the write is in flight.
    const bytes = Buffer.from(request.data);
    try {
      const digest = await digestDataInTurns(bytes);
      const scopeDirs = await this.#slots.ensureScope(request.scope);
      const nameDirs = await this.#slots.ensureName(scopeDirs, request.name);
      const dataStage = join(scopeDirs.staging, `${randomUUID()}.d`);
      return await publish(
        this.#publisher,
        { scopeDirs, nameDirs, dataStage, request, digest },
        createDurably(dataStage, bytes, this.#config.fileMode),
      );
    } catch (error) {
      throw asArtifactError(error, "put");
    }
  }

  /**
   * Streams into a staging file while hashing, then publishes it with the put protocol:
   * the same reservation, fsyncs and renames. Nothing is visible before `finish()`.
   */
  async openUpload(scope: Scope, name: string, options?: UploadOptions): Promise<UploadSink> {
    this.#ensureOpen();
    const request = parseUpload(scope, name, options, this.#config.maxArtifactBytes);
    request.deadline.check();
    try {
      const scopeDirs = await this.#slots.ensureScope(request.scope);
      const nameDirs = await this.#slots.ensureName(scopeDirs, request.name);
      const dataStage = join(scopeDirs.staging, `${randomUUID()}.d`);
      const file = new StagingFile(await createExclusive(dataStage, this.#config.fileMode));
      return uploadSink(request, {
        // The chunk is written straight from the caller's buffer while the sink hashes it.
        write: async (chunk) => {
          this.#ensureOpen();
          await file.write(chunk);
        },
        publish: async (digest, deadline) => {
          this.#ensureOpen();
          const synced = file.syncAndClose();
          try {
            return await publish(
              this.#publisher,
              { scopeDirs, nameDirs, dataStage, request, digest },
              synced,
              deadline,
            );
          } catch (error) {
            throw asArtifactError(error, "upload");
          }
        },
        discard: async () => {
          await file.close().catch(() => undefined);
          await removeQuietly(dataStage);
        },
      });
    } catch (error) {
      throw asArtifactError(error, "upload");
    }
  }

  /**
   * Serves a version (or a range of it) from its data file, one verified block at a time;
   * the block digests are read from the version's reservation.
   */
  async openDownload(
    scope: Scope,
    name: string,
    options?: DownloadOptions,
  ): Promise<DownloadSource> {
    this.#ensureOpen();
    const request = parseDownload(scope, name, options);
    request.deadline.check();
    try {
      const { meta, data, blocks } = await this.#resolve(request, (at) => openVersion(at, true));
      try {
        const range = resolveRange(request.range, meta.size);
        return verifiedSource({
          meta,
          blocks: blocks ?? [],
          range,
          deadline: request.deadline,
          read: (start, end) => readFileRange(data.handle, start, end),
          close: () => data.handle.close(),
        });
      } catch (error) {
        await data.handle.close();
        throw error;
      }
    } catch (error) {
      throw asArtifactError(error, "download");
    }
  }

  async get(scope: Scope, name: string, options?: GetOptions): Promise<Artifact> {
    return (await this.#find(scope, name, options, "full")) as Artifact;
  }

  /** Checks the metadata and the data file's size; the bytes are hashed only by `get`. */
  async head(scope: Scope, name: string, options?: GetOptions): Promise<ArtifactMeta> {
    return this.#find(scope, name, options, "head");
  }

  async delete(
    scope: Scope,
    name: string,
    selector: DeleteSelector,
    options?: RequestOptions,
  ): Promise<void> {
    this.#ensureOpen();
    const request = parseDelete(scope, name, selector, options);
    request.deadline.check();
    try {
      const dir = this.#nameDir(request.scope, request.name);
      let removed = 0;
      if (request.selector === "all") {
        const versions = await this.#liveVersions(dir);
        request.deadline.check();
        // Unpublish everything first, then drop the payloads: a crash in between leaves
        // only unpublished payloads, which repair removes.
        for (const version of versions) {
          if (await removeIfPresent(versionFile(dir, version, "m"))) removed += 1;
        }
        // Durably unpublished before any payload goes: see unpublish().
        if (removed > 0) await syncDirectory(dir);
        for (const version of versions) await removeIfPossible(versionFile(dir, version, "d"));
        // Again, after the data: see unpublish().
        for (const version of versions) await removeIfPresent(versionFile(dir, version, "m"));
      } else if (request.selector === "latest") {
        // Another process may delete the latest version first: then take the next one.
        for (;;) {
          const latest = (await this.#liveVersions(dir)).at(-1);
          if (latest === undefined) break;
          request.deadline.check();
          if (await unpublish(dir, latest)) {
            removed = 1;
            break;
          }
        }
      } else {
        request.deadline.check();
        if (await unpublish(dir, request.selector)) removed = 1;
      }
      if (removed === 0) throw notFound(`artifact "${request.name}" (${request.selector})`);
      await syncDirectory(dir);
    } catch (error) {
      throw asArtifactError(error, "delete");
    }
  }

  async listNames(scope: Scope, options?: ListNamesOptions): Promise<NamePage> {
    this.#ensureOpen();
    const request = parseListNames(scope, options, this.#config.maxPageLimit);
    request.deadline.check();
    try {
      const scopeDirs = scopePaths(this.#dirs, scopeDigest(request.scope));
      const items: string[] = [];
      // Read a page at a time from the ordered name index (name-order.ts).
      for await (const candidate of this.#names.names(scopeDirs, namePageStart(request))) {
        // Names with the prefix are one contiguous run in UTF-8 order.
        if (request.prefix !== undefined && !candidate.startsWith(request.prefix)) break;
        request.deadline.check();
        const live = await this.#liveVersions(namePaths(scopeDirs, candidate).dir);
        if (live.length === 0) continue;
        // One live name beyond the page: only then is there a next page.
        if (items.length === request.limit) {
          return { scope: request.scope, items, nextCursor: items[items.length - 1] as string };
        }
        items.push(candidate);
      }
      return { scope: request.scope, items };
    } catch (error) {
      throw asArtifactError(error, "listNames");
    }
  }

  async listVersions(
    scope: Scope,
    name: string,
    options?: ListVersionsOptions,
  ): Promise<VersionPage> {
    this.#ensureOpen();
    const request = parseListVersions(scope, name, options, this.#config.maxPageLimit);
    request.deadline.check();
    try {
      const dir = this.#nameDir(request.scope, request.name);
      const versions = await this.#liveVersions(dir);
      const start =
        request.cursor === undefined
          ? 0
          : indexAfter(versions, request.cursor, (item) => item, compareNumbers);
      const items: ArtifactMeta[] = [];
      for (let at = start; at < versions.length; at++) {
        const version = versions[at] as number;
        request.deadline.check();
        if (items.length === request.limit) {
          return { items, nextCursor: (items[items.length - 1] as ArtifactMeta).version };
        }
        const meta = await readMeta({ scope: request.scope, name: request.name, dir, version });
        if (meta) items.push(meta);
      }
      return { items };
    } catch (error) {
      throw asArtifactError(error, "listVersions");
    }
  }

  async list(scope: Scope, options?: RequestOptions): Promise<ArtifactMeta[]> {
    this.#ensureOpen();
    const request = parseScopeRequest(scope, options);
    request.deadline.check();
    try {
      const scopeDirs = scopePaths(this.#dirs, scopeDigest(request.scope));
      const live: [string, string, readonly number[]][] = [];
      let total = 0;
      for await (const name of this.#names.names(scopeDirs, undefined)) {
        request.deadline.check();
        const dir = namePaths(scopeDirs, name).dir;
        const versions = await this.#liveVersions(dir);
        total += versions.length;
        if (total > this.#config.legacyListLimit) {
          throw resultLimitExceeded("legacyListLimit", this.#config.legacyListLimit);
        }
        if (versions.length > 0) live.push([name, dir, versions]);
      }
      const result: ArtifactMeta[] = [];
      for (const [name, dir, versions] of live) {
        for (const version of versions) {
          const meta = await readMeta({ scope: request.scope, name, dir, version });
          if (meta) result.push(meta);
        }
      }
      return result;
    } catch (error) {
      throw asArtifactError(error, "list");
    }
  }

  /**
   * Removes staging leftovers and unpublished payloads at least `minAgeMs` old, and publishes
   * the versions of idempotency key bindings a crash cut short. Never removes a reservation,
   * a slot, a claim, a binding or published metadata; metadata whose data is missing is
   * counted in `corrupt`, leftovers it cannot remove are listed in `unremovable`. Each
   * directory read is bounded by maxScanEntries.
   */
  async repair(options?: RepairOptions): Promise<RepairReport> {
    this.#ensureOpen();
    const given = validateOptionKeys(options, ["limit", "minAgeMs"], "repairOptions");
    const limit =
      given.limit === undefined
        ? this.#config.maxScanEntries
        : validatePositiveInteger(given.limit, "limit");
    const minAgeMs =
      given.minAgeMs === undefined
        ? this.#config.recoveryGraceMs
        : validateMilliseconds(given.minAgeMs, "minAgeMs");
    try {
      return await repairTree(this.#dirs, {
        maxScanEntries: this.#config.maxScanEntries,
        maxNamesDirEntries: namesDirEntries(this.#config),
        limit,
        minAgeMs,
        rebuildNames: (scopeDirs) => this.#names.rebuild(scopeDirs),
      });
    } catch (error) {
      throw asArtifactError(error, "repair");
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#slots.clear();
    this.#allocator.clear();
    this.#names.clear();
    this.#versionLists.clear();
  }

  #nameDir(scope: Scope, name: string): string {
    return namePaths(scopePaths(this.#dirs, scopeDigest(scope)), name).dir;
  }

  /** Published versions of a name, ascending; reread only when its directory changed. */
  #liveVersions(dir: string): Promise<readonly number[]> {
    return this.#versionLists.read(dir, async () =>
      Object.freeze(await liveVersions(dir, this.#config.maxScanEntries)),
    );
  }

  async #find(
    scope: unknown,
    name: unknown,
    options: unknown,
    mode: ReadMode,
  ): Promise<ArtifactMeta> {
    this.#ensureOpen();
    const request = parseGet(scope, name, options);
    request.deadline.check();
    try {
      return await this.#resolve(request, (at) => readVersion(at, mode));
    } catch (error) {
      throw asArtifactError(error, mode === "full" ? "get" : "head");
    }
  }

  /** Reads the requested version, or for "latest" the highest one still published. */
  async #resolve<T>(
    request: ParsedGet,
    read: (at: VersionAddress) => Promise<T | undefined>,
  ): Promise<T> {
    const { scope, name } = request;
    const dir = this.#nameDir(scope, name);
    const candidates =
      request.version === "latest"
        ? [...(await this.#liveVersions(dir))].reverse()
        : [request.version];
    // A candidate deleted by another process since the listing is skipped; a corrupt one
    // fails the call, never falls back to an older version.
    for (const version of candidates) {
      request.deadline.check();
      const found = await read({ scope, name, dir, version });
      if (found) return found;
    }
    throw notFound(`artifact "${request.name}" version ${request.version}`);
  }

  #ensureOpen(): void {
    if (this.#closed) throw closedError();
  }
}
