import { isAbsolute, resolve } from "node:path";
import { invalidArgument, validateOptionKeys, validatePositiveInteger } from "@artifact-kit/core";
import type { FsDurability } from "./io.js";

export interface FsArtifactServiceOptions {
  /** Absolute path of an existing directory; neither it nor any parent may be a symbolic link. */
  root: string;
  /** Largest single artifact, in bytes (default 64 MiB). */
  maxArtifactBytes?: number;
  /** Largest and default page of listNames / listVersions (default 1,000). */
  maxPageLimit?: number;
  /** Most versions the legacy `list` returns before result_limit_exceeded (default 1,000). */
  legacyListLimit?: number;
  /**
   * Most entries one directory scan reads (at least 3, default 10,000). It fixes the lifetime
   * ceiling of scopes per root, `maxScanEntries div 2`.
   */
  maxScanEntries?: number;
  /**
   * Lifetime ceiling of names per scope (default 100,000, at most 1,000,000). Listings read
   * the ordered name index a page at a time; rebuilding it (and repair) reads the names
   * directory, two entries per name.
   */
  maxNamesPerScope?: number;
  /**
   * Lifetime ceiling of versions per name (default 10,000, or `maxScanEntries div 3` where
   * that is more, the ceiling before this option; at most 1,000,000). Reads of the
   * latest and of a listing page probe by number; a name's whole directory (read up to four
   * entries per version) is read only by an instance's first read or put of the name, `list`,
   * `delete(..., "all")` and `repair`.
   */
  maxVersionsPerName?: number;
  /** Default `minAgeMs` of `repair()` (default 300,000 = the longest `timeoutMs`). */
  recoveryGraceMs?: number;
  /** Mode of every file the adapter creates (default 0o600). */
  fileMode?: number;
  /** Mode of every directory the adapter creates (default 0o700). */
  dirMode?: number;
  /**
   * "durable" (default): a write is on the disk before it is acknowledged (fsync), so it
   * survives a power cut. "process", for development loops: no fsync at all; every write is
   * still atomic, exclusive and checked, and survives the writing process being killed, but a
   * power cut or a kernel crash may lose or tear what was acknowledged.
   */
  durability?: FsDurability;
}

export interface FsConfig extends Required<FsArtifactServiceOptions> {
  /** Lifetime ceiling derived from `maxScanEntries`. */
  readonly maxScopes: number;
}

const MiB = 1024 * 1024;

type Tunables = Required<Omit<FsArtifactServiceOptions, "root">>;

export const FS_DEFAULTS: Readonly<Tunables> = Object.freeze({
  maxArtifactBytes: 64 * MiB,
  maxPageLimit: 1_000,
  legacyListLimit: 1_000,
  maxScanEntries: 10_000,
  maxNamesPerScope: 100_000,
  maxVersionsPerName: 10_000,
  recoveryGraceMs: 300_000,
  fileMode: 0o600,
  dirMode: 0o700,
  durability: "durable",
});

const OPTION_KEYS = ["root", ...Object.keys(FS_DEFAULTS)];

/** Largest `maxNamesPerScope` and `maxVersionsPerName`: see the options. */
export const MAX_NAMES_PER_SCOPE = 1_000_000;
export const MAX_VERSIONS_PER_NAME = 1_000_000;

/**
 * The lifetime ceilings: scopes keep the scopes directory within one bounded scan; names per
 * scope and versions per name are set on their own, and bound the scans of their directories.
 */
export function fsCeilings(
  maxScanEntries: number,
  maxNamesPerScope: number = FS_DEFAULTS.maxNamesPerScope,
  maxVersionsPerName: number = defaultVersionsPerName(maxScanEntries),
): {
  maxScopes: number;
  maxNamesPerScope: number;
  maxVersionsPerName: number;
} {
  return { maxScopes: Math.floor(maxScanEntries / 2), maxNamesPerScope, maxVersionsPerName };
}

/**
 * Versions per name when the option is not given: a store whose `maxScanEntries` was raised
 * to hold more versions, when they were `maxScanEntries div 3`, keeps that many.
 */
function defaultVersionsPerName(maxScanEntries: number): number {
  return Math.min(
    MAX_VERSIONS_PER_NAME,
    Math.max(FS_DEFAULTS.maxVersionsPerName, Math.floor(maxScanEntries / 3)),
  );
}

/** Entries a scope's names directory may hold: a slot and a directory per name. */
export const namesDirEntries = (config: { maxNamesPerScope: number }) =>
  2 * config.maxNamesPerScope + 2;

/**
 * Entries a name's directory may hold: per version its reservation and its metadata or
 * tombstone, a payload `<v>.d` in a store written before version files, and for a moment a
 * finishing put's late link beside a tombstone.
 */
export const versionDirEntries = (config: { maxVersionsPerName: number }) =>
  4 * config.maxVersionsPerName;

/** A non-negative integer number of milliseconds (0 allowed). */
export function validateMilliseconds(value: unknown, field: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw invalidArgument(field, "must be a non-negative integer");
  }
  return value;
}

function validateMode(value: unknown, field: string, required: number): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value > 0o777) {
    throw invalidArgument(field, "must be a permission mode from 0 to 0o777");
  }
  if ((value & required) !== required) {
    throw invalidArgument(field, `must grant the owner at least 0o${required.toString(8)}`);
  }
  return value;
}

/** Validates the options (unknown keys rejected) without touching the filesystem. */
export function resolveFsConfig(options: unknown): FsConfig {
  const given = validateOptionKeys(options, OPTION_KEYS, "fsOptions");
  if (typeof given.root !== "string" || given.root.length === 0 || given.root.includes("\0")) {
    throw invalidArgument("root", "must be a non-empty path without NUL");
  }
  if (!isAbsolute(given.root)) throw invalidArgument("root", "must be an absolute path");
  const config: Tunables = { ...FS_DEFAULTS };
  for (const key of ["maxArtifactBytes", "maxPageLimit", "legacyListLimit"] as const) {
    if (given[key] !== undefined) config[key] = validatePositiveInteger(given[key], key);
  }
  if (given.maxScanEntries !== undefined) {
    config.maxScanEntries = validatePositiveInteger(given.maxScanEntries, "maxScanEntries");
    if (config.maxScanEntries < 3) throw invalidArgument("maxScanEntries", "must be at least 3");
  }
  config.maxVersionsPerName = defaultVersionsPerName(config.maxScanEntries);
  for (const [key, most] of [
    ["maxNamesPerScope", MAX_NAMES_PER_SCOPE],
    ["maxVersionsPerName", MAX_VERSIONS_PER_NAME],
  ] as const) {
    if (given[key] === undefined) continue;
    config[key] = validatePositiveInteger(given[key], key);
    if (config[key] > most) throw invalidArgument(key, `must be at most ${most}`);
  }
  if (given.recoveryGraceMs !== undefined) {
    config.recoveryGraceMs = validateMilliseconds(given.recoveryGraceMs, "recoveryGraceMs");
  }
  if (given.fileMode !== undefined)
    config.fileMode = validateMode(given.fileMode, "fileMode", 0o600);
  if (given.dirMode !== undefined) config.dirMode = validateMode(given.dirMode, "dirMode", 0o700);
  if (given.durability !== undefined) {
    if (given.durability !== "durable" && given.durability !== "process") {
      throw invalidArgument("durability", 'must be "durable" or "process"');
    }
    config.durability = given.durability;
  }
  return Object.freeze({
    ...config,
    root: resolve(given.root),
    ...fsCeilings(config.maxScanEntries, config.maxNamesPerScope, config.maxVersionsPerName),
  });
}
