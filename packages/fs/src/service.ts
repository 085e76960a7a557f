import { lstat, realpath } from "node:fs/promises";
import {
  asArtifactError,
  type Capabilities,
  closedError,
  defineCapabilities,
  invalidArgument,
  validateOptionKeys,
  validatePositiveInteger,
} from "@artifact-kit/core";
import { AdapterService } from "@artifact-kit/core/adapter";
import {
  type FsArtifactServiceOptions,
  type FsConfig,
  resolveFsConfig,
  validateMilliseconds,
} from "./config.js";
import { isMissing } from "./io.js";
import type { RepairOptions, RepairReport } from "./repair.js";
import { FsStore } from "./store.js";

function fsCapabilities(config: FsConfig): Capabilities {
  const { maxArtifactBytes, maxScopes, maxNamesPerScope, maxVersionsPerName } = config;
  return defineCapabilities({
    durability: config.durability,
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
 * Durable artifact service on one directory. Several processes may share a root: they race
 * only on exclusive file creation. See the package README for the protocol and guarantees.
 */
export class FsArtifactService extends AdapterService {
  readonly #store: FsStore;

  private constructor(store: FsStore) {
    super(store, fsCapabilities(store.config));
    this.#store = store;
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
    const store = new FsStore(Object.freeze({ ...config, root }));
    await store.layOut().catch((error: unknown) => {
      throw asArtifactError(error, "open");
    });
    return new FsArtifactService(store);
  }

  /** The real path of the store's root directory. */
  get root(): string {
    return this.#store.config.root;
  }

  /**
   * Removes staging leftovers and unpublished payloads at least `minAgeMs` old and what a
   * crash left of deleted versions; keeps the versions of idempotency key bindings a crash cut
   * short before their publication, unpublished, for a retry with the key (`awaitingRetry`).
   * Never publishes anything, and never removes a reservation, a tombstone, a slot, a
   * claim, a binding or published metadata; metadata whose data is missing is
   * counted in `corrupt`, leftovers it cannot remove are listed in `unremovable`. Each
   * directory read is bounded by maxScanEntries.
   */
  async repair(options?: RepairOptions): Promise<RepairReport> {
    if (this.closed) throw closedError();
    const config = this.#store.config;
    const given = validateOptionKeys(options, ["limit", "minAgeMs"], "repairOptions");
    const limit =
      given.limit === undefined
        ? config.maxScanEntries
        : validatePositiveInteger(given.limit, "limit");
    const minAgeMs =
      given.minAgeMs === undefined
        ? config.recoveryGraceMs
        : validateMilliseconds(given.minAgeMs, "minAgeMs");
    try {
      return await this.#store.repair(limit, minAgeMs);
    } catch (error) {
      throw asArtifactError(error, "repair");
    }
  }
}
