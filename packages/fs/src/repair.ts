import { lstat } from "node:fs/promises";
import { join, relative } from "node:path";
import { isArtifactError } from "@artifact-kit/core";
import { isTornBinding, isWholeBoundVersion } from "./bound-version.js";
import { emptyFile, isMissing, removeIfPresent, scanDirectory, type WriteSettings } from "./io.js";
import {
  DIGEST_PATTERN,
  KEY_BINDING_PATTERN,
  keysDir,
  type RootPaths,
  type ScopePaths,
  scopePaths,
  VERSION_FILE_PATTERN,
  versionFile,
} from "./layout.js";
import { openSealedRecord } from "./sealed-record.js";
import { readRecordFile } from "./version-reads.js";
import { releaseVersionFile } from "./version-release.js";

export interface RepairOptions {
  /** Most files one call removes (default maxScanEntries); call again while `complete` is false. */
  limit?: number;
  /** Only leftovers at least this old are removed (default recoveryGraceMs). */
  minAgeMs?: number;
}

export interface RepairReport {
  /** Directory entries examined. */
  readonly scanned: number;
  /**
   * Staging leftovers, unpublished payloads and what deletes cut short left of deleted
   * versions, removed.
   */
  readonly removed: number;
  /** Version reservations seen and kept (they hold the version high-water). */
  readonly reservationsPreserved: number;
  /**
   * Versions whose idempotency key was bound, whole, but whose publication a crash cut short:
   * kept unpublished, for the next retry with that key to finish. Repair never publishes a
   * put that no caller was told of: whoever judged it not done meanwhile (a reconciler of
   * `@artifact-kit/effects`, which looks for published versions) must not be proven wrong.
   */
  readonly awaitingRetry: number;
  /** Published metadata whose data file is missing: reported, never erased. */
  readonly corrupt: number;
  /**
   * Leftovers repair could not remove (paths relative to the root), for example a directory
   * where a payload should be: reported, and the walk goes on. At most `limit` are listed.
   */
  readonly unremovable: readonly string[];
  /** False when `limit` or a directory larger than its bound cut the walk short. */
  readonly complete: boolean;
}

/** Bytes of the file at `path` (links not followed); 0 when it is gone. */
async function sizeOf(path: string): Promise<number> {
  try {
    return (await lstat(path)).size;
  } catch (error) {
    if (isMissing(error)) return 0;
    throw error;
  }
}

/** Whether a published version is a version file (which carries its payload). */
async function isVersionFile(dir: string, version: number): Promise<boolean> {
  try {
    const read = await readRecordFile(versionFile(dir, version, "m"), "the metadata file", {
      version,
    });
    return read?.versionFile === true;
  } catch (error) {
    if (isArtifactError(error, "corrupt_artifact")) return false;
    throw error;
  }
}

/**
 * The version an idempotency key binding names, and its size and digest; undefined when the
 * binding is unreadable (torn by a power cut, keys.ts).
 */
async function boundVersion(path: string): Promise<BoundVersion | undefined> {
  try {
    const read = await readRecordFile(path, "the binding", {});
    const record = read && openSealedRecord(read.record, "the binding", {});
    const { version, size, sha256 } = record ?? {};
    return typeof version === "number" &&
      Number.isSafeInteger(version) &&
      version > 0 &&
      typeof size === "number" &&
      typeof sha256 === "string"
      ? { path, version, size, sha256, versionFile: read?.versionFile === true }
      : undefined;
  } catch (error) {
    if (isArtifactError(error, "corrupt_artifact")) return undefined;
    throw error;
  }
}

interface BoundVersion {
  readonly path: string;
  readonly version: number;
  readonly size: number;
  readonly sha256: string;
  /** Whether the binding is the version's file (else a record of the format before). */
  readonly versionFile: boolean;
}

/**
 * Walks the whole store, each directory read bounded (a name's and its keys' directories by
 * versionDirEntries, a names directory by namesDirEntries, others by `maxScanEntries`),
 * removing staging leftovers and unpublished payloads (`<v>.d` without `<v>.m`) at least
 * `minAgeMs` old, and the payloads of deleted versions (`<v>.t`), at most `limit` files.
 * Bound versions cut short before their publication are kept, unpublished, for their key's
 * retry. Reservations, tombstones, slots, claims, bindings and published metadata are never
 * removed.
 */
export async function repairTree(
  dirs: RootPaths,
  options: {
    maxScanEntries: number;
    /** Bound of a scope's names directory (two entries per name). */
    maxNamesDirEntries: number;
    /** Bound of a name's directory (config.ts, versionDirEntries). */
    maxVersionDirEntries: number;
    limit: number;
    minAgeMs: number;
    /** How far the releases of deleted versions are synced. */
    durability: WriteSettings["durability"];
    /** Rebuilds a scope's ordered name index from its slots (name-order.ts). */
    rebuildNames: (scope: ScopePaths) => Promise<void>;
  },
): Promise<RepairReport> {
  const { maxScanEntries: max, limit, minAgeMs } = options;
  const report = {
    scanned: 0,
    removed: 0,
    reservationsPreserved: 0,
    awaitingRetry: 0,
    corrupt: 0,
    unremovable: [] as string[],
    complete: true,
  };
  const now = Date.now();

  const scan = async (dir: string, bound = max) => {
    const { entries, truncated } = await scanDirectory(dir, bound);
    if (truncated) report.complete = false;
    report.scanned += entries.length;
    return entries;
  };

  /**
   * One removal (or emptying, or release) of what `path` names, counted against `limit`:
   * false, and nothing done, once `limit` files have been removed. `act` says whether it
   * removed anything; one that fails is reported as unremovable.
   */
  const counted = async (path: string, act: () => Promise<boolean>): Promise<boolean> => {
    if (report.removed + report.unremovable.length >= limit) {
      report.complete = false;
      return false;
    }
    try {
      if (await act()) report.removed += 1;
    } catch {
      // Not ours to force (rm -r of a planted directory could take anything with it).
      report.unremovable.push(relative(dirs.root, path));
    }
    return true;
  };

  /** Removes `path`; false once `limit` files have been removed. */
  const remove = (path: string): Promise<boolean> => counted(path, () => removeIfPresent(path));

  /** Whether `path` was last written at least minAgeMs ago (false when it is gone). */
  const isOld = async (path: string): Promise<boolean> => {
    try {
      return now - (await lstat(path)).mtimeMs >= minAgeMs;
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
  };

  /** Removes `path` if it is old enough; false once `limit` files have been removed. */
  const removeOld = async (path: string): Promise<boolean> => !(await isOld(path)) || remove(path);

  /**
   * Empties the version file of a put cut short if it is old enough (its reservation stays,
   * the version burned); false once `limit` files have been removed or emptied.
   */
  const emptyOld = async (path: string): Promise<boolean> =>
    !(await isOld(path)) ||
    counted(path, async () => {
      await emptyFile(path);
      return true;
    });

  const sweepStaging = async (dir: string): Promise<boolean> => {
    for (const entry of await scan(dir)) {
      if (entry.isFile() && !(await removeOld(join(dir, entry.name)))) return false;
    }
    return true;
  };

  /**
   * Bindings of the name's idempotency keys, by the version each binds. One version can have
   * two: a torn binding whose reservation a power cut lost, and the binding of the put that
   * took its number again. An unreadable binding is counted corrupt unless a power cut tore
   * it (bound-version.ts).
   */
  const bindings = async (keys: string): Promise<Map<number, BoundVersion[]>> => {
    const byVersion = new Map<number, BoundVersion[]>();
    for (const entry of await scan(keys, options.maxVersionDirEntries)) {
      if (!entry.isFile() || !KEY_BINDING_PATTERN.test(entry.name)) continue;
      const path = join(keys, entry.name);
      const bound = await boundVersion(path);
      if (bound) byVersion.set(bound.version, [...(byVersion.get(bound.version) ?? []), bound]);
      else if (!(await isTornBinding(path))) report.corrupt += 1;
    }
    return byVersion;
  };

  /**
   * Whether a binding holds this version, cut short before its publication, whole (a legacy
   * binding, its payload `<v>.d`, as it was written): then it is left for its key's retry.
   */
  const awaitsRetry = async (dir: string, version: number, candidates: BoundVersion[]) => {
    for (const bound of candidates) {
      if (bound.versionFile && !(await isWholeBoundVersion(bound.path, { dir, version }, bound)))
        continue;
      report.awaitingRetry += 1;
      return true;
    }
    return false;
  };

  const sweepVersions = async (dir: string, keys: string): Promise<boolean> => {
    const kinds = new Map<number, Set<string>>();
    for (const entry of await scan(dir, options.maxVersionDirEntries)) {
      const match = VERSION_FILE_PATTERN.exec(entry.name);
      if (!match) continue;
      const version = Number(match[1]);
      const present = kinds.get(version) ?? new Set();
      present.add(match[2] as string);
      kinds.set(version, present);
    }
    // A payload without metadata, no tombstone: a put cut short, kept if its key was bound.
    // The payload is a version file at the reservation (sized), or before version files `<v>.d`.
    const unpublished = (present: Set<string>) => !present.has("m") && !present.has("t");
    const cutShort = new Map<number, "d" | "r">();
    for (const [version, present] of kinds) {
      if (!unpublished(present)) continue;
      if (present.has("d")) cutShort.set(version, "d");
      else if (present.has("r") && (await sizeOf(versionFile(dir, version, "r"))) > 0) {
        cutShort.set(version, "r");
      }
    }
    const orphaned = (present: Set<string>, version: number) =>
      unpublished(present) && cutShort.has(version);
    const bound = cutShort.size > 0 ? await bindings(keys) : new Map();
    for (const [version, present] of kinds) {
      if (present.has("r")) report.reservationsPreserved += 1;
      if (present.has("t")) {
        // Deleted: what a delete cut short left (its payload), or a finishing put's late link
        // of the metadata (it crashed before taking it back) goes, whatever its age.
        for (const kind of ["d", "m"] as const) {
          if (present.has(kind) && !(await remove(versionFile(dir, version, kind)))) return false;
        }
        // A release another process or call already made is no removal (and no failure).
        const release = () => releaseVersionFile(dir, version, options).catch(() => false);
        if (!(await counted(versionFile(dir, version, "t"), release))) return false;
        continue;
      }
      if (present.has("m") && !present.has("d") && !(await isVersionFile(dir, version))) {
        report.corrupt += 1;
      }
      if (!orphaned(present, version)) continue;
      if (await awaitsRetry(dir, version, bound.get(version) ?? [])) continue;
      // Unbound, or bound torn: the put was never acknowledged.
      const leftover =
        cutShort.get(version) === "d"
          ? removeOld(versionFile(dir, version, "d"))
          : emptyOld(versionFile(dir, version, "r"));
      if (!(await leftover)) return false;
    }
    return true;
  };

  const isDigestDir = (entry: { name: string; isDirectory(): boolean }) =>
    entry.isDirectory() && DIGEST_PATTERN.test(entry.name);

  if (!(await sweepStaging(dirs.staging))) return report;
  for (const scopeEntry of (await scan(dirs.scopes)).filter(isDigestDir)) {
    const scope = scopePaths(dirs, scopeEntry.name);
    if (!(await sweepStaging(scope.staging))) return report;
    await options.rebuildNames(scope);
    for (const nameEntry of (await scan(scope.names, options.maxNamesDirEntries)).filter(
      isDigestDir,
    )) {
      const keys = keysDir(scope, nameEntry.name);
      if (!(await sweepVersions(join(scope.names, nameEntry.name), keys))) return report;
    }
  }
  return report;
}
