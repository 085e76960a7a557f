import { randomUUID } from "node:crypto";
import { link } from "node:fs/promises";
import { join } from "node:path";
import {
  type ArtifactMeta,
  type NamePage,
  notFound,
  type ScopePage,
  type VersionPage,
} from "@artifact-kit/core";
import {
  type AdapterHooks,
  type DataDigest,
  type ParsedDelete,
  type ParsedGet,
  type ParsedListNames,
  type ParsedListScopes,
  type ParsedListVersions,
  type ParsedPublication,
  type ParsedRequest,
  type ParsedUpload,
  type StoredArtifact,
  type StoredDownload,
  scopeDigest,
  type UploadTarget,
} from "@artifact-kit/core/adapter";
import { VersionAllocator } from "./allocator.js";
import { type FsConfig, namesDirEntries, versionDirEntries } from "./config.js";
import { DirectoryCache } from "./dir-cache.js";
import {
  createExclusive,
  readFileRange,
  releaseInBackground,
  removeQuietly,
  syncDirectory,
} from "./io.js";
import { KeyBindings } from "./keys.js";
import { LatestReadAhead } from "./latest-read-ahead.js";
import { namePaths, type RootPaths, rootPaths, scopePaths } from "./layout.js";
import {
  type LiveListing,
  liveNamePage,
  liveVersionPage,
  liveVersionsOfScope,
} from "./live-listing.js";
import { NameOrder } from "./name-order.js";
import { type Publisher, publish } from "./publication.js";
import { type RepairReport, repairTree } from "./repair.js";
import { liveScopePage, ScopeSlotReader } from "./scopes.js";
import { Slots } from "./slots.js";
import { StagingFile } from "./staging-file.js";
import { payloadOffsetFor } from "./version-file.js";
import {
  dropDeleted,
  entomb,
  isLive,
  liveVersions,
  unpublish,
  type VersionAddress,
} from "./version-files.js";
import { openVersion, readContent, readHead } from "./version-reads.js";
import { VersionTops } from "./version-tops.js";
import { type VersionNumbers, walkVersions } from "./version-walk.js";
import { bytesVersionWriter, uploadVersionWriter } from "./version-writer.js";

/**
 * The fs adapter's backend: one directory tree, shared with other processes, which race only
 * on exclusive file creation. The template has parsed, bounded, copied and digested what
 * reaches these hooks; see the package README for the protocol and guarantees.
 */
/** Walks for the latest version before one stands whatever was published meanwhile. */
const MAX_LATEST_WALKS = 4;

/** Whether any of `versions` reads as published now; what the read found is let go. */
async function anyPublished<T>(
  versions: readonly number[],
  read: (version: number) => Promise<T | undefined>,
  release: (found: T) => void,
): Promise<boolean> {
  for (const version of versions) {
    const found = await read(version);
    if (found !== undefined) {
      release(found);
      return true;
    }
  }
  return false;
}

export class FsStore implements AdapterHooks {
  readonly #config: FsConfig;
  readonly #dirs: RootPaths;
  readonly #slots: Slots;
  readonly #allocator: VersionAllocator;
  readonly #publisher: Publisher;
  readonly #names: NameOrder;
  readonly #versionLists = new DirectoryCache<readonly number[]>();
  readonly #versionTops: VersionTops;
  readonly #listing: LiveListing;
  readonly #scopeSlots: ScopeSlotReader;
  /** The put protocol waits for a publish gate after its first round of syncs (publication.ts). */
  readonly waitsForPublishGate = true;

  constructor(config: FsConfig) {
    this.#config = config;
    this.#dirs = rootPaths(config.root);
    this.#names = new NameOrder(config);
    this.#slots = new Slots(config, this.#dirs, this.#names);
    this.#allocator = new VersionAllocator(config);
    this.#versionTops = new VersionTops(versionDirEntries(config));
    this.#publisher = { config, allocator: this.#allocator, keys: new KeyBindings(config) };
    this.#scopeSlots = new ScopeSlotReader(this.#dirs, config.maxScanEntries);
    this.#listing = {
      scopeDirs: (scope) => scopePaths(this.#dirs, scopeDigest(scope)),
      names: this.#names,
      liveVersions: (dir) => this.#liveVersions(dir),
      versionNumbers: (dir) => this.#versionNumbers(dir),
    };
  }

  get config(): FsConfig {
    return this.#config;
  }

  /** Lays out the root on first use. */
  layOut(): Promise<void> {
    return this.#slots.layOut();
  }

  async publish(
    request: ParsedPublication,
    bytes: Uint8Array,
    digest: DataDigest,
  ): Promise<ArtifactMeta> {
    const scopeDirs = await this.#slots.ensureScope(request.scope);
    const nameDirs = await this.#slots.ensureName(scopeDirs, request.name);
    return this.#seenPublished(
      nameDirs.dir,
      publish(this.#publisher, {
        scopeDirs,
        nameDirs,
        request,
        digest,
        payloadOffset: payloadOffsetFor(request),
        // Written once, straight to its version file: no staging copy to rename.
        reserve: async (path) =>
          bytesVersionWriter(
            await createExclusive(path, this.#config.fileMode),
            bytes,
            this.#config,
          ),
        drop: async () => {},
      }),
    );
  }

  /** The version a put of this instance published becomes the next read's guess of the latest. */
  async #seenPublished(dir: string, published: Promise<ArtifactMeta>): Promise<ArtifactMeta> {
    const meta = await published;
    this.#versionTops.published(dir, meta.version);
    return meta;
  }

  /**
   * Streams into a staging file (after room for the version file's head) while the sink
   * hashes, then publishes it with the put protocol: the file is linked to its version's
   * reservation and completed there. Nothing is visible before `finish()`.
   */
  async beginUpload(request: ParsedUpload): Promise<UploadTarget> {
    const scopeDirs = await this.#slots.ensureScope(request.scope);
    const nameDirs = await this.#slots.ensureName(scopeDirs, request.name);
    const stage = join(scopeDirs.staging, `${randomUUID()}.d`);
    const payloadOffset = payloadOffsetFor(request);
    const file = new StagingFile(
      await createExclusive(stage, this.#config.fileMode),
      this.#config,
      payloadOffset,
    );
    const discard = async () => {
      await file.close().catch(() => undefined);
      await removeQuietly(stage);
    };
    return {
      // The chunk is written straight from the caller's buffer while the sink hashes it.
      write: (chunk) => file.write(chunk),
      publish: (digest, deadline) =>
        this.#seenPublished(
          nameDirs.dir,
          publish(
            this.#publisher,
            {
              scopeDirs,
              nameDirs,
              request,
              digest,
              payloadOffset,
              // Linked while still open: its last bytes are flushed meanwhile.
              reserve: async (path) => {
                await link(stage, path);
                return uploadVersionWriter(file);
              },
              drop: discard,
            },
            deadline,
          ),
        ),
      discard,
    };
  }

  read(request: ParsedGet): Promise<StoredArtifact> {
    return this.#resolve(request, readContent);
  }

  /** Checks the metadata and the data file's size; the bytes are hashed only by a get. */
  readMeta(request: ParsedGet): Promise<ArtifactMeta> {
    return this.#resolve(request, readHead);
  }

  /** Serves a version from its payload, one verified block at a time. */
  async download(request: ParsedGet): Promise<StoredDownload> {
    const opened = await this.#resolve(
      request,
      (at) => openVersion(at, true),
      (unused) => releaseInBackground(unused.data.handle),
    );
    const { handle, offset } = opened.data;
    return {
      meta: opened.meta,
      blocks: opened.blocks ?? [],
      read: (start, end) => readFileRange(handle, offset + start, offset + end),
      close: () => handle.close(),
    };
  }

  async remove(request: ParsedDelete): Promise<void> {
    const dir = this.#nameDir(request);
    let removed = 0;
    if (request.selector === "all") {
      const versions = await this.#liveVersions(dir);
      request.deadline.check();
      // Entomb everything first, then drop the payloads: a crash in between leaves deleted
      // versions with their payloads, which repair removes.
      const entombed: number[] = [];
      for (const version of versions) {
        if (await entomb(dir, version)) entombed.push(version);
      }
      removed = entombed.length;
      // Durably unpublished before any payload goes: see entomb().
      if (removed > 0) await syncDirectory(dir, this.#config);
      for (const version of entombed) await dropDeleted(dir, version, this.#config);
    } else if (request.selector === "latest") {
      // Another process may delete the latest version first: then take the next one.
      for (;;) {
        const latest = await this.#latest(dir, request, async (at) =>
          (await isLive(at.dir, at.version)) ? at.version : undefined,
        );
        if (latest === undefined) break;
        request.deadline.check();
        if (await unpublish(dir, latest, this.#config)) {
          removed = 1;
          break;
        }
      }
    } else {
      request.deadline.check();
      if (await unpublish(dir, request.selector, this.#config)) removed = 1;
    }
    if (removed === 0) throw notFound(`artifact "${request.name}" (${request.selector})`);
    await syncDirectory(dir, this.#config);
  }

  names(request: ParsedListNames): Promise<NamePage> {
    return liveNamePage(this.#listing, request);
  }

  scopes(request: ParsedListScopes): Promise<ScopePage> {
    return liveScopePage(this.#scopeSlots, request, (names) => this.names(names));
  }

  versions(request: ParsedListVersions): Promise<VersionPage> {
    return liveVersionPage(this.#listing, request, this.#nameDir(request));
  }

  legacyList(request: ParsedRequest): Promise<ArtifactMeta[]> {
    return liveVersionsOfScope(this.#listing, request, this.#config.legacyListLimit);
  }

  /** See FsArtifactService.repair: the options are already validated. */
  repair(limit: number, minAgeMs: number): Promise<RepairReport> {
    return repairTree(this.#dirs, {
      maxScanEntries: this.#config.maxScanEntries,
      maxNamesDirEntries: namesDirEntries(this.#config),
      maxVersionDirEntries: versionDirEntries(this.#config),
      durability: this.#config.durability,
      limit,
      minAgeMs,
      rebuildNames: (scopeDirs) => this.#names.rebuild(scopeDirs),
    });
  }

  async closeBackend(): Promise<void> {
    this.#slots.clear();
    this.#allocator.clear();
    this.#names.clear();
    this.#versionLists.clear();
    this.#versionTops.clear();
  }

  #nameDir(request: ParsedRequest & { readonly name: string }): string {
    return namePaths(this.#listing.scopeDirs(request.scope), request.name).dir;
  }

  /** Published versions of a name, ascending; reread only when its directory changed. */
  #liveVersions(dir: string): Promise<readonly number[]> {
    return this.#versionLists.read(dir, async () =>
      Object.freeze(await liveVersions(dir, versionDirEntries(this.#config))),
    );
  }

  /** A name's versions by number, from its highest reservation (version-walk.ts). */
  #versionNumbers(dir: string): VersionNumbers {
    return { top: () => this.#versionTops.top(dir), listed: () => this.#liveVersions(dir) };
  }

  /**
   * `read` of the highest version it finds published, trying them from the highest reserved
   * down: one that another process deleted or has not published yet reads as undefined and
   * is passed over; a corrupt one fails the call, never falls back to an older version.
   * `release` lets go of what a read found that the call does not answer (a download's open
   * data file), rather than leave it to the garbage collector.
   */
  async #latest<T>(
    dir: string,
    request: ParsedRequest & { readonly name: string },
    read: (at: VersionAddress) => Promise<T | undefined>,
    release: (found: T) => void = () => {},
  ): Promise<T | undefined> {
    const { scope, name } = request;
    const at = (version: number) => read({ scope, name, dir, version });
    // A walk down reads one number at a time: a put may publish above while a delete takes
    // what the walk was heading for, and the walk would answer an older version, or none, that
    // was never the latest at any one moment. So the numbers it passed are read again after
    // it: if one was published meanwhile, the walk starts over (a few times at most, then the
    // last answer stands).
    for (let attempt = 1; ; attempt++) {
      let latest: T | undefined;
      const passed: number[] = [];
      const ahead = new LatestReadAhead(
        attempt === 1 ? this.#versionTops.steadyTop(dir) : undefined,
        at,
        release,
      );
      try {
        await walkVersions(this.#versionNumbers(dir), {
          direction: "down",
          // Reads of the latest are content reads: one at a time, the first is nearly always it.
          batchSize: () => 1,
          read: (versions) =>
            Promise.all(
              versions.map(async (version) => {
                const found = await ahead.read(version);
                if (found === undefined) passed.push(version);
                return found;
              }),
            ),
          take: (found) => {
            latest = found;
            return true;
          },
          check: () => request.deadline.check(),
        });
      } finally {
        ahead.discard();
      }
      if (attempt >= MAX_LATEST_WALKS || !(await anyPublished(passed, at, release))) {
        return latest;
      }
      if (latest !== undefined) release(latest);
    }
  }

  /** Reads the requested version, or for "latest" the highest one still published. */
  async #resolve<T>(
    request: ParsedGet,
    read: (at: VersionAddress) => Promise<T | undefined>,
    release?: (found: T) => void,
  ): Promise<T> {
    const { scope, name } = request;
    const dir = this.#nameDir(request);
    request.deadline.check();
    const found =
      request.version === "latest"
        ? await this.#latest(dir, request, read, release)
        : await read({ scope, name, dir, version: request.version });
    if (found === undefined) {
      throw notFound(`artifact "${request.name}" version ${request.version}`);
    }
    return found;
  }
}
