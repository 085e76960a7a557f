import { lstat } from "node:fs/promises";
import { join } from "node:path";
import { isMissing, removeIfPresent, scanDirectory } from "./io.js";
import {
  DIGEST_PATTERN,
  type RootPaths,
  scopePaths,
  VERSION_FILE_PATTERN,
  versionFile,
} from "./layout.js";

export interface RepairOptions {
  /** Most files one call removes (default maxScanEntries); call again while `complete` is false. */
  limit?: number;
  /** Only leftovers at least this old are removed (default recoveryGraceMs). */
  minAgeMs?: number;
}

export interface RepairReport {
  /** Directory entries examined. */
  readonly scanned: number;
  /** Staging leftovers and unpublished payloads removed. */
  readonly removed: number;
  /** Version reservations seen and kept (they hold the version high-water). */
  readonly reservationsPreserved: number;
  /** Published metadata whose data file is missing: reported, never erased. */
  readonly corrupt: number;
  /** False when `limit` or a directory larger than maxScanEntries cut the walk short. */
  readonly complete: boolean;
}

/**
 * Walks the whole store, each directory read bounded by `maxScanEntries`, removing staging
 * leftovers and unpublished payloads (`<v>.d` without `<v>.m`) at least `minAgeMs` old, at
 * most `limit` of them. Reservations, slots, claims and published metadata are never removed.
 */
export async function repairTree(
  dirs: RootPaths,
  options: { maxScanEntries: number; limit: number; minAgeMs: number },
): Promise<RepairReport> {
  const { maxScanEntries: max, limit, minAgeMs } = options;
  const report = { scanned: 0, removed: 0, reservationsPreserved: 0, corrupt: 0, complete: true };
  const now = Date.now();

  const scan = async (dir: string) => {
    const { entries, truncated } = await scanDirectory(dir, max);
    if (truncated) report.complete = false;
    report.scanned += entries.length;
    return entries;
  };

  /** Removes `path` if it is old enough; false once `limit` files have been removed. */
  const removeOld = async (path: string): Promise<boolean> => {
    try {
      if (now - (await lstat(path)).mtimeMs < minAgeMs) return true;
    } catch (error) {
      if (isMissing(error)) return true;
      throw error;
    }
    if (report.removed >= limit) {
      report.complete = false;
      return false;
    }
    if (await removeIfPresent(path)) report.removed += 1;
    return true;
  };

  const sweepStaging = async (dir: string): Promise<boolean> => {
    for (const entry of await scan(dir)) {
      if (entry.isFile() && !(await removeOld(join(dir, entry.name)))) return false;
    }
    return true;
  };

  const sweepVersions = async (dir: string): Promise<boolean> => {
    const kinds = new Map<number, Set<string>>();
    for (const entry of await scan(dir)) {
      const match = VERSION_FILE_PATTERN.exec(entry.name);
      if (!match) continue;
      const version = Number(match[1]);
      const present = kinds.get(version) ?? new Set();
      present.add(match[2] as string);
      kinds.set(version, present);
    }
    for (const [version, present] of kinds) {
      if (present.has("r")) report.reservationsPreserved += 1;
      if (present.has("m") && !present.has("d")) report.corrupt += 1;
      if (present.has("d") && !present.has("m")) {
        if (!(await removeOld(versionFile(dir, version, "d")))) return false;
      }
    }
    return true;
  };

  const isDigestDir = (entry: { name: string; isDirectory(): boolean }) =>
    entry.isDirectory() && DIGEST_PATTERN.test(entry.name);

  if (!(await sweepStaging(dirs.staging))) return report;
  for (const scopeEntry of (await scan(dirs.scopes)).filter(isDigestDir)) {
    const scope = scopePaths(dirs, scopeEntry.name);
    if (!(await sweepStaging(scope.staging))) return report;
    for (const nameEntry of (await scan(scope.names)).filter(isDigestDir)) {
      if (!(await sweepVersions(join(scope.names, nameEntry.name)))) return report;
    }
  }
  return report;
}
