import { randomUUID } from "node:crypto";
import { type FileHandle, link, lstat, mkdir, realpath, rename } from "node:fs/promises";
import { dirname, join } from "node:path";
import {
  type Artifact,
  ArtifactError,
  type ArtifactErrorDetail,
  type ArtifactMeta,
  type ArtifactService,
  type ArtifactTransfer,
  asArtifactError,
  blockCount,
  type Capabilities,
  checkArtifactSize,
  checkBlockDigests,
  checkMetaReply,
  closedError,
  compareNumbers,
  compareUtf8,
  type DataDigest,
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
  notFound,
  type ParsedGet,
  type ParsedPut,
  type ParsedUpload,
  type PutOptions,
  parseDelete,
  parseDownload,
  parseGet,
  parseListNames,
  parseListVersions,
  parsePut,
  parseScopeRequest,
  parseUpload,
  quotaLimitCode,
  type RequestOptions,
  resolveRange,
  type Scope,
  sameScope,
  scopeDigest,
  sha256Hex,
  type UploadOptions,
  type UploadSink,
  uploadSink,
  type VersionPage,
  validateName,
  validateOptionKeys,
  validatePositiveInteger,
  validateScope,
  verifiedSource,
} from "@artifact-kit/core";
import {
  type FsArtifactServiceOptions,
  type FsConfig,
  resolveFsConfig,
  validateMilliseconds,
} from "./config.js";
import {
  createDurably,
  createExclusive,
  isMissing,
  isTaken,
  openForRead,
  pathExists,
  readExactly,
  readFileRange,
  readStoreDirectory,
  releaseInBackground,
  removeIfPresent,
  removeQuietly,
  syncDirectory,
  syncHandle,
} from "./io.js";
import {
  type NamePaths,
  namePaths,
  type RootPaths,
  rootPaths,
  type ScopePaths,
  SLOT_PATTERN,
  scopePaths,
  VERSION_FILE_PATTERN,
  versionFile,
} from "./layout.js";
import { type RepairOptions, type RepairReport, repairTree } from "./repair.js";
import { StagingFile } from "./staging-file.js";

/** On-disk format of slot and metadata files. */
const FORMAT = 1;

/**
 * Largest metadata file a get will read. The largest valid record (a 1,024-byte name, three
 * 256-byte scope ids and a 255-byte MIME type, all of control characters that JSON escapes
 * six-fold, plus 16 KiB of user metadata) is under 29 KiB.
 */
export const MAX_METADATA_FILE_BYTES = 65_536;
/** Largest slot file read (the largest valid one is under 7 KiB). */
const MAX_SLOT_FILE_BYTES = 16_384;
/** Slot files read in parallel when listing names from a cold cache. */
const SLOT_READ_BATCH = 64;

/** Block digests are stored in a version's reservation as concatenated lowercase hex. */
const BLOCK_DIGEST_CHARS = 64;

type CeilingKind = "scope" | "name" | "version";
type ReadMode = "meta" | "head" | "full";

/** A data file being published, and what is published with it. */
interface Staging {
  readonly scopeDirs: ScopePaths;
  readonly nameDirs: NamePaths;
  readonly dataStage: string;
  readonly request: ParsedPut | ParsedUpload;
  readonly digest: DataDigest;
}

interface OpenedVersion {
  readonly meta: ArtifactMeta;
  readonly data: { readonly handle: FileHandle; readonly size: number };
  readonly blocks: readonly string[] | undefined;
}

interface VersionCounter {
  /** Next version number to try; 0 until the directory has been scanned. */
  next: number;
}

interface NameIndex {
  /** Verified name slots of one scope: digest -> name. Slots are immutable once linked. */
  readonly byDigest: Map<string, string>;
  /** The names above in UTF-8 byte order. */
  sorted: string[];
}

interface SlotSpec {
  readonly kind: "scope" | "name";
  readonly digest: string;
  readonly content: string;
  readonly slot: string;
  /** Directories to create before the slot is linked, outermost first. */
  readonly dirs: readonly string[];
  readonly claims: string;
  readonly maxClaims: number;
  readonly staging: string;
  /** Checks an existing slot; throws corrupt_artifact if it names something else. */
  readonly verify: () => Promise<boolean>;
}

function corrupt(
  message: string,
  detail: ArtifactErrorDetail = {},
  cause?: unknown,
): ArtifactError {
  return new ArtifactError(
    "corrupt_artifact",
    message,
    cause === undefined ? { detail } : { detail, cause },
  );
}

const CEILING_BOUND: Record<CeilingKind, "maxScopes" | "maxNamesPerScope" | "maxVersionsPerName"> =
  {
    scope: "maxScopes",
    name: "maxNamesPerScope",
    version: "maxVersionsPerName",
  };

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Parses a whole small file as UTF-8 JSON, or throws corrupt_artifact. */
function parseJsonFile(bytes: Buffer, what: string, detail: ArtifactErrorDetail): unknown {
  try {
    return JSON.parse(utf8.decode(bytes));
  } catch (error) {
    throw corrupt(`${what} is not UTF-8 JSON`, detail, error);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Durable artifact service on one directory. Several processes may share a root: they race
 * only on exclusive file creation. See the package README for the protocol and guarantees.
 */
export class FsArtifactService implements ArtifactService, ArtifactTransfer {
  readonly #config: FsConfig;
  readonly #dirs: RootPaths;
  readonly #capabilities: Capabilities;
  /** Scopes whose slot this instance has created or verified. */
  readonly #scopes = new Map<string, Promise<ScopePaths>>();
  /** Names (key `scopeDigest/nameDigest`) whose slot this instance has created or verified. */
  readonly #names = new Map<string, Promise<NamePaths>>();
  readonly #counters = new Map<string, VersionCounter>();
  readonly #nameIndexes = new Map<string, NameIndex>();
  #closed = false;

  private constructor(config: FsConfig) {
    this.#config = config;
    this.#dirs = rootPaths(config.root);
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
    await service.#layOut().catch((error: unknown) => {
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
      const scopeDirs = await this.#ensureScope(request.scope);
      const nameDirs = await this.#ensureName(scopeDirs, request.name);
      const dataStage = join(scopeDirs.staging, `${randomUUID()}.d`);
      return await this.#publish(
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
      const scopeDirs = await this.#ensureScope(request.scope);
      const nameDirs = await this.#ensureName(scopeDirs, request.name);
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
            return await this.#publish(
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
      const { meta, data, blocks } = await this.#resolve(request, (dir, version) =>
        this.#openVersion(request.scope, request.name, dir, version, true),
      );
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

  /**
   * The put protocol after the data is being staged: reserve the next version (recording the
   * block digests in the reservation), stage the metadata record, fsync all of it, then
   * rename the data and finally the metadata into place: the publication point.
   */
  async #publish(staging: Staging, staged: Promise<void>, deadline = staging.request.deadline) {
    const { scopeDirs, nameDirs, dataStage, request, digest } = staging;
    const metaStage = join(scopeDirs.staging, `${randomUUID()}.m`);
    let placedData: string | undefined;
    let published = false;
    try {
      // The reservation and the payload are independent: write them at the same time.
      const [reserved, written] = await Promise.allSettled([
        this.#reserve(scopeDirs, nameDirs).then(async ({ version, reservation }) => {
          try {
            const meta: ArtifactMeta = Object.freeze({
              scope: request.scope,
              name: request.name,
              version,
              mimeType: request.mimeType,
              size: digest.size,
              sha256: digest.sha256,
              createdAt: Date.now(),
              metadata: request.metadata,
            });
            const record = JSON.stringify({ format: FORMAT, ...meta });
            await reservation.writeFile(digest.blocks.join(""));
            // The reservation is fsynced together with the staged files, before anything
            // is renamed into place: concurrent fsyncs share journal commits.
            await Promise.all([
              syncHandle(reservation),
              createDurably(metaStage, record, this.#config.fileMode),
            ]);
            return meta;
          } finally {
            await reservation.close();
          }
        }),
        staged,
      ]);
      if (reserved.status === "rejected") throw reserved.reason;
      if (written.status === "rejected") throw written.reason;
      const meta = reserved.value;
      deadline.check();
      const dataTarget = versionFile(nameDirs.dir, meta.version, "d");
      await rename(dataStage, dataTarget);
      placedData = dataTarget;
      await syncDirectory(nameDirs.dir);
      deadline.check();
      await rename(metaStage, versionFile(nameDirs.dir, meta.version, "m"));
      published = true;
      await syncDirectory(nameDirs.dir);
      return meta;
    } finally {
      if (!published) {
        // The version stays reserved (burned); nothing of this request stays visible.
        await removeQuietly(placedData ?? dataStage);
        await removeQuietly(metaStage);
      }
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
        // Durably unpublished before any payload goes: see #unpublish.
        if (removed > 0) await syncDirectory(dir);
        for (const version of versions) await removeIfPresent(versionFile(dir, version, "d"));
      } else if (request.selector === "latest") {
        // Another process may delete the latest version first: then take the next one.
        for (;;) {
          const latest = (await this.#liveVersions(dir)).at(-1);
          if (latest === undefined) break;
          request.deadline.check();
          if (await this.#unpublish(dir, latest)) {
            removed = 1;
            break;
          }
        }
      } else {
        request.deadline.check();
        if (await this.#unpublish(dir, request.selector)) removed = 1;
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
      const sorted = await this.#knownNames(scopeDirs);
      const items: string[] = [];
      const start =
        request.cursor === undefined
          ? 0
          : indexAfter(sorted, request.cursor, (item) => item, compareUtf8);
      for (const candidate of sorted.slice(start)) {
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
      for (const version of versions.slice(start)) {
        request.deadline.check();
        if (items.length === request.limit) {
          return { items, nextCursor: (items[items.length - 1] as ArtifactMeta).version };
        }
        const meta = await this.#readVersion(request.scope, request.name, dir, version, "meta");
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
      const live: [string, string, number[]][] = [];
      let total = 0;
      for (const name of await this.#knownNames(scopeDirs)) {
        request.deadline.check();
        const dir = namePaths(scopeDirs, name).dir;
        const versions = await this.#liveVersions(dir);
        total += versions.length;
        if (total > this.#config.legacyListLimit) {
          throw new ArtifactError(
            "result_limit_exceeded",
            `scope holds more than legacyListLimit versions; use listNames and listVersions`,
            {
              detail: {
                limit: quotaLimitCode("legacyListLimit"),
                bound: this.#config.legacyListLimit,
              },
            },
          );
        }
        if (versions.length > 0) live.push([name, dir, versions]);
      }
      const result: ArtifactMeta[] = [];
      for (const [name, dir, versions] of live) {
        for (const version of versions) {
          const meta = await this.#readVersion(request.scope, name, dir, version, "meta");
          if (meta) result.push(meta);
        }
      }
      return result;
    } catch (error) {
      throw asArtifactError(error, "list");
    }
  }

  /**
   * Removes staging leftovers and unpublished payloads at least `minAgeMs` old. Never removes
   * a reservation, a slot, a claim or published metadata; metadata whose data is missing is
   * counted in `corrupt`. Each directory read is bounded by maxScanEntries.
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
        limit,
        minAgeMs,
      });
    } catch (error) {
      throw asArtifactError(error, "repair");
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#scopes.clear();
    this.#names.clear();
    this.#counters.clear();
    this.#nameIndexes.clear();
  }

  // --- layout and slots ---------------------------------------------------------------

  async #layOut(): Promise<void> {
    const mode = this.#config.dirMode;
    for (const dir of [this.#dirs.staging, this.#dirs.scopeClaims, this.#dirs.scopes]) {
      await mkdir(dir, { mode, recursive: true });
    }
    await syncDirectory(this.#dirs.root);
  }

  #ensureScope(scope: Scope): Promise<ScopePaths> {
    const digest = scopeDigest(scope);
    return this.#memo(this.#scopes, digest, async () => {
      const dirs = scopePaths(this.#dirs, digest);
      await this.#ensureSlot({
        kind: "scope",
        digest,
        content: JSON.stringify({ format: FORMAT, scope }),
        slot: dirs.slot,
        dirs: [dirs.dir, dirs.staging, dirs.nameClaims, dirs.names],
        claims: this.#dirs.scopeClaims,
        maxClaims: this.#config.maxScopes,
        staging: this.#dirs.staging,
        verify: () => this.#verifyScopeSlot(dirs.slot, scope),
      });
      return dirs;
    });
  }

  #ensureName(scopeDirs: ScopePaths, name: string): Promise<NamePaths> {
    const dirs = namePaths(scopeDirs, name);
    return this.#memo(this.#names, `${scopeDirs.digest}/${dirs.digest}`, async () => {
      await this.#ensureSlot({
        kind: "name",
        digest: dirs.digest,
        content: JSON.stringify({ format: FORMAT, name }),
        slot: dirs.slot,
        dirs: [dirs.dir],
        claims: scopeDirs.nameClaims,
        maxClaims: this.#config.maxNamesPerScope,
        staging: scopeDirs.staging,
        verify: async () => (await this.#readNameSlot(dirs.slot, dirs.digest)) !== undefined,
      });
      return dirs;
    });
  }

  /** Caches a successful async result per key; a failure is retried by the next call. */
  #memo<T>(cache: Map<string, Promise<T>>, key: string, make: () => Promise<T>): Promise<T> {
    let pending = cache.get(key);
    if (!pending) {
      pending = make();
      cache.set(key, pending);
      pending.catch(() => cache.delete(key));
    }
    return pending;
  }

  /**
   * Makes sure a slot exists. Creating one takes a capacity claim first (so the ceiling holds
   * exactly across processes), creates the directories, then links a complete, fsynced
   * temporary file to the slot name: link() is exclusive and atomic, so the slot appears
   * whole or not at all, and only one creator wins. A loser gives its claim back.
   */
  async #ensureSlot(spec: SlotSpec): Promise<void> {
    if (await spec.verify()) return;
    const claim = await this.#claim(spec);
    let linked = false;
    try {
      for (const dir of spec.dirs) {
        await mkdir(dir, { mode: this.#config.dirMode, recursive: true });
      }
      await syncDirectory(spec.dirs[0] as string);
      // The new directory's own entry is made durable before the slot that vouches for it:
      // a power cut may keep the link below and lose an unsynced mkdir (power-loss trials).
      await syncDirectory(dirname(spec.dirs[0] as string));
      const temp = join(spec.staging, `${randomUUID()}.slot`);
      await createDurably(temp, spec.content, this.#config.fileMode);
      try {
        await link(temp, spec.slot);
        linked = true;
      } catch (error) {
        if (!isTaken(error)) throw error;
      } finally {
        await removeQuietly(temp);
      }
      if (linked) await syncDirectory(dirname(spec.slot));
    } finally {
      // Best effort: a claim that cannot be given back only lowers the ceiling.
      if (!linked) {
        await removeQuietly(claim);
        await syncDirectory(spec.claims).catch(() => {});
      }
    }
    if (!linked && !(await spec.verify())) {
      throw corrupt(`the ${spec.kind} slot vanished while it was being created`, {
        kind: spec.kind,
      });
    }
  }

  /** Takes the lowest free claim number in 1..maxClaims, or fails with capacity_reached. */
  async #claim(spec: SlotSpec): Promise<string> {
    for (;;) {
      const taken = new Set(await this.#scan(spec.claims));
      let number = 1;
      while (taken.has(String(number))) number += 1;
      if (number > spec.maxClaims) throw this.#capacityReached(spec.kind);
      const claim = join(spec.claims, String(number));
      try {
        await createDurably(claim, spec.digest, this.#config.fileMode);
        await syncDirectory(spec.claims);
        return claim;
      } catch (error) {
        if (!isTaken(error)) throw error;
      }
    }
  }

  #capacityReached(kind: CeilingKind): ArtifactError {
    const boundName = CEILING_BOUND[kind];
    const bound = this.#config[boundName];
    return new ArtifactError(
      "capacity_reached",
      `the store's lifetime ceiling of ${bound} ${kind}s (${boundName}) is reached`,
      { detail: { kind, bound, limit: quotaLimitCode(boundName) } },
    );
  }

  /** True if the scope slot exists and names `scope`; throws corrupt_artifact otherwise. */
  async #verifyScopeSlot(path: string, scope: Scope): Promise<boolean> {
    const slot = await this.#readSlot(path, "scope");
    if (slot === undefined) return false;
    try {
      if (sameScope(validateScope(slot.scope), scope)) return true;
    } catch (error) {
      throw corrupt("the scope slot holds no valid scope", { kind: "scope" }, error);
    }
    throw corrupt("the scope slot names another scope", { kind: "scope" });
  }

  /** The name a name slot holds, checked against its digest; undefined if absent. */
  async #readNameSlot(path: string, digest: string): Promise<string | undefined> {
    const slot = await this.#readSlot(path, "name");
    if (slot === undefined) return undefined;
    let name: string;
    try {
      name = validateName(slot.name);
    } catch (error) {
      throw corrupt("the name slot holds no valid name", { kind: "name" }, error);
    }
    if (sha256Hex(name) !== digest)
      throw corrupt("the name slot names another name", { kind: "name" });
    return name;
  }

  async #readSlot(
    path: string,
    kind: "scope" | "name",
  ): Promise<Record<string, unknown> | undefined> {
    const bytes = await this.#readSmallFile(path, MAX_SLOT_FILE_BYTES, `the ${kind} slot`, {
      kind,
    });
    if (bytes === undefined) return undefined;
    const slot = parseJsonFile(bytes, `the ${kind} slot`, { kind });
    if (!isRecord(slot) || slot.format !== FORMAT) {
      throw corrupt(`the ${kind} slot has an unknown format`, { kind });
    }
    return slot;
  }

  /** Reads a whole file after checking its size; undefined if absent. */
  async #readSmallFile(
    path: string,
    maxBytes: number,
    what: string,
    detail: ArtifactErrorDetail,
  ): Promise<Buffer | undefined> {
    const opened = await this.#openChecked(path, what, detail);
    if (!opened) return undefined;
    const { handle, size } = opened;
    try {
      if (size > maxBytes) throw corrupt(`${what} is larger than ${maxBytes} bytes`, detail);
      const bytes = await readExactly(handle, size);
      if (!bytes) throw corrupt(`${what} shrank while it was read`, detail);
      return bytes;
    } finally {
      releaseInBackground(handle);
    }
  }

  /** Opens a regular file without following links, with its size; undefined if absent. */
  async #openChecked(
    path: string,
    what: string,
    detail: ArtifactErrorDetail,
  ): Promise<{ handle: FileHandle; size: number } | undefined> {
    let handle: FileHandle | undefined;
    try {
      handle = await openForRead(path);
    } catch (error) {
      throw corrupt(`${what} cannot be opened as a regular file`, detail, error);
    }
    if (!handle) return undefined;
    try {
      const stats = await handle.stat();
      if (!stats.isFile()) throw corrupt(`${what} is not a regular file`, detail);
      return { handle, size: stats.size };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  // --- versions ------------------------------------------------------------------------

  #nameDir(scope: Scope, name: string): string {
    return namePaths(scopePaths(this.#dirs, scopeDigest(scope)), name).dir;
  }

  /**
   * Reserves the next version with an exclusive create and returns the reservation still
   * open, for the caller to fsync. Versions are allocated as high-water + 1, so reservations
   * are contiguous and the version number is their count.
   */
  async #reserve(
    scopeDirs: ScopePaths,
    nameDirs: NamePaths,
  ): Promise<{ version: number; reservation: FileHandle }> {
    const key = `${scopeDirs.digest}/${nameDirs.digest}`;
    let counter = this.#counters.get(key);
    if (!counter) {
      counter = { next: 0 };
      this.#counters.set(key, counter);
    }
    if (counter.next === 0) {
      const highWater = await this.#highWater(nameDirs.dir);
      counter.next = Math.max(counter.next, highWater + 1);
    }
    for (;;) {
      // Taken synchronously, so that puts in this process never race each other.
      const version = counter.next;
      counter.next += 1;
      if (version > this.#config.maxVersionsPerName) throw this.#capacityReached("version");
      try {
        const path = versionFile(nameDirs.dir, version, "r");
        return { version, reservation: await createExclusive(path, this.#config.fileMode) };
      } catch (error) {
        if (!isTaken(error)) throw error;
        // Another process holds it: catch up with everything reserved since.
        const highWater = await this.#highWater(nameDirs.dir);
        counter.next = Math.max(counter.next, highWater + 1);
      }
    }
  }

  async #highWater(dir: string): Promise<number> {
    let highest = 0;
    for (const entry of await this.#scan(dir)) {
      const match = VERSION_FILE_PATTERN.exec(entry);
      if (match) highest = Math.max(highest, Number(match[1]));
    }
    return highest;
  }

  /** Published (metadata present) versions of a name, ascending. */
  async #liveVersions(dir: string): Promise<number[]> {
    const versions: number[] = [];
    for (const entry of await this.#scan(dir)) {
      const match = VERSION_FILE_PATTERN.exec(entry);
      if (match?.[2] === "m") versions.push(Number(match[1]));
    }
    return versions.sort(compareNumbers);
  }

  async #unpublish(dir: string, version: number): Promise<boolean> {
    if (!(await removeIfPresent(versionFile(dir, version, "m")))) return false;
    // A power cut may keep a later unlink and lose an earlier unsynced one: without this
    // fsync, the payload's removal could survive and the metadata's not, leaving a published
    // version without data (found by the power-loss trials).
    await syncDirectory(dir);
    await removeIfPresent(versionFile(dir, version, "d"));
    return true;
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
      return await this.#resolve(request, (dir, version) =>
        this.#readVersion(request.scope, request.name, dir, version, mode),
      );
    } catch (error) {
      throw asArtifactError(error, mode === "full" ? "get" : "head");
    }
  }

  /** Reads the requested version, or for "latest" the highest one still published. */
  async #resolve<T>(
    request: ParsedGet,
    read: (dir: string, version: number) => Promise<T | undefined>,
  ): Promise<T> {
    const dir = this.#nameDir(request.scope, request.name);
    const candidates =
      request.version === "latest" ? (await this.#liveVersions(dir)).reverse() : [request.version];
    // A candidate deleted by another process since the listing is skipped; a corrupt one
    // fails the call, never falls back to an older version.
    for (const version of candidates) {
      request.deadline.check();
      const found = await read(dir, version);
      if (found) return found;
    }
    throw notFound(`artifact "${request.name}" version ${request.version}`);
  }

  /**
   * Reads and checks one published version; undefined when it is not (or no longer)
   * published. Every mismatch is corrupt_artifact.
   */
  async #readVersion(
    scope: Scope,
    name: string,
    dir: string,
    version: number,
    mode: ReadMode,
  ): Promise<ArtifactMeta | undefined> {
    if (mode === "meta") return this.#readMeta(scope, name, dir, version);
    const opened = await this.#openVersion(scope, name, dir, version, false);
    if (!opened) return undefined;
    const { meta, data } = opened;
    try {
      if (mode === "head") return meta;
      const bytes = await readExactly(data.handle, data.size);
      if (!bytes) throw corrupt("the data file shrank while it was read", { version });
      if (sha256Hex(bytes) !== meta.sha256) {
        throw corrupt("the data does not match its SHA-256", { version });
      }
      const view = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      return Object.freeze({ ...meta, data: view });
    } finally {
      releaseInBackground(data.handle);
    }
  }

  async #readMeta(
    scope: Scope,
    name: string,
    dir: string,
    version: number,
  ): Promise<ArtifactMeta | undefined> {
    const metaBytes = await this.#readSmallFile(
      versionFile(dir, version, "m"),
      MAX_METADATA_FILE_BYTES,
      "the metadata file",
      { version },
    );
    return metaBytes === undefined ? undefined : this.#decodeMeta(metaBytes, scope, name, version);
  }

  /**
   * Opens a published version's data file, checked against its metadata's size, and with
   * `withBlocks` its block digests; the caller closes the handle. Undefined when the version
   * is not (or no longer) published.
   */
  async #openVersion(
    scope: Scope,
    name: string,
    dir: string,
    version: number,
    withBlocks: boolean,
  ): Promise<OpenedVersion | undefined> {
    const detail = { version };
    // The metadata is read while the data file opens: a get waits for one round of file
    // system calls instead of two.
    const [metaRead, dataOpened] = await Promise.allSettled([
      this.#readMeta(scope, name, dir, version),
      this.#openChecked(versionFile(dir, version, "d"), "the data file", detail),
    ]);
    if (metaRead.status === "rejected" || !metaRead.value) {
      if (dataOpened.status === "fulfilled") await dataOpened.value?.handle.close();
      if (metaRead.status === "rejected") throw metaRead.reason;
      return undefined;
    }
    if (dataOpened.status === "rejected") throw dataOpened.reason;
    const meta = metaRead.value;
    const data = dataOpened.value;
    if (!data) {
      // delete() removes the metadata before the data: if the metadata is gone too, the
      // version was deleted under us; if not, its data is missing.
      if (await pathExists(versionFile(dir, version, "m"))) {
        throw corrupt("the data file is missing", detail);
      }
      return undefined;
    }
    try {
      if (data.size !== meta.size) {
        throw corrupt(
          `the data file holds ${data.size} bytes, the metadata says ${meta.size}`,
          detail,
        );
      }
      const blocks = withBlocks ? await this.#readBlocks(dir, meta) : undefined;
      return { meta, data, blocks };
    } catch (error) {
      await data.handle.close();
      throw error;
    }
  }

  /** The block digests recorded in a version's reservation, checked against its size. */
  async #readBlocks(dir: string, meta: ArtifactMeta): Promise<readonly string[]> {
    const detail = { version: meta.version };
    const expected = blockCount(meta.size) * BLOCK_DIGEST_CHARS;
    const bytes = await this.#readSmallFile(
      versionFile(dir, meta.version, "r"),
      expected,
      "the version reservation",
      detail,
    );
    const text = bytes?.toString("latin1");
    const digests =
      text?.length === expected
        ? Array.from({ length: blockCount(meta.size) }, (_, i) =>
            text.slice(i * BLOCK_DIGEST_CHARS, (i + 1) * BLOCK_DIGEST_CHARS),
          )
        : undefined;
    const blocks = checkBlockDigests(digests, meta.size);
    if (!blocks) throw corrupt("the reservation holds no valid block digests", detail);
    return blocks;
  }

  #decodeMeta(bytes: Buffer, scope: Scope, name: string, version: number): ArtifactMeta {
    const detail = { version };
    const record = parseJsonFile(bytes, "the metadata file", detail);
    if (!isRecord(record) || record.format !== FORMAT) {
      throw corrupt("the metadata file has an unknown format", detail);
    }
    let meta: ArtifactMeta;
    try {
      meta = checkMetaReply(record, scope, name);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw corrupt(`the metadata file is invalid: ${reason}`, detail, error);
    }
    if (meta.version !== version) throw corrupt("the metadata file names another version", detail);
    return Object.freeze({
      scope,
      name,
      version,
      mimeType: meta.mimeType,
      size: meta.size,
      sha256: meta.sha256,
      createdAt: meta.createdAt,
      metadata: meta.metadata,
    });
  }

  // --- listing -------------------------------------------------------------------------

  /** Reads a protocol directory; more than maxScanEntries entries means foreign files. */
  async #scan(dir: string): Promise<string[]> {
    const { names, truncated } = await readStoreDirectory(dir, this.#config.maxScanEntries);
    if (truncated) {
      throw corrupt(`a store directory holds more than maxScanEntries entries`, {
        maxScanEntries: this.#config.maxScanEntries,
      });
    }
    return names;
  }

  /** Every name ever created in a scope (live or not), in UTF-8 byte order. */
  async #knownNames(scopeDirs: ScopePaths): Promise<string[]> {
    let index = this.#nameIndexes.get(scopeDirs.digest);
    if (!index) {
      index = { byDigest: new Map(), sorted: [] };
      this.#nameIndexes.set(scopeDirs.digest, index);
    }
    const known = index.byDigest;
    const unread: string[] = [];
    for (const entry of await this.#scan(scopeDirs.names)) {
      const digest = SLOT_PATTERN.exec(entry)?.[1];
      if (digest !== undefined && !known.has(digest)) unread.push(digest);
    }
    if (unread.length === 0) return index.sorted;
    for (let i = 0; i < unread.length; i += SLOT_READ_BATCH) {
      const batch = unread.slice(i, i + SLOT_READ_BATCH);
      const names = await Promise.all(
        batch.map((digest) => this.#readNameSlot(join(scopeDirs.names, `${digest}.json`), digest)),
      );
      names.forEach((name, j) => {
        if (name !== undefined) known.set(batch[j] as string, name);
      });
    }
    index.sorted = [...known.values()].sort(compareUtf8);
    return index.sorted;
  }

  #ensureOpen(): void {
    if (this.#closed) throw closedError();
  }
}
