import { join, sep } from "node:path";
import { type Scope, scopeDigest, sha256Hex } from "@artifact-kit/core";

/**
 * `dir`/`entry` for a directory path already normalized (built by `join` from the root) and one
 * entry name of the store's own making (a fixed name, a digest, a number): what `join` returns
 * for them, without its normalizing pass, which was a noticeable part of a read's own time.
 */
function child(dir: string, entry: string): string {
  return `${dir}${sep}${entry}`;
}

// Every path component below `root` is one of the fixed names here, a lowercase hex
// SHA-256, a decimal version or claim number, or a random UUID: never a user string.
//
//   root/
//     staging/                    scope-slot temporaries
//     scope-claims/<k>            capacity tokens, k = 1..maxScopes
//     scopes/<sd>.json            scope slot (the real scope), sd = scopeDigest(scope)
//     scopes/<sd>/
//       staging/                  upload and name-slot temporaries
//       name-claims/<k>           capacity tokens, k = 1..maxNamesPerScope
//       name-log/<nd>.json        names created since the last index compaction
//       name-index/<g>.idx        generation g of the ordered name index (name-order.ts)
//       names/<nd>.json           name slot (the real name), nd = sha256(name)
//       names/<nd>/<v>.r          version reservation (O_EXCL, or an upload linked there),
//                                 never removed: the version file (version-file.ts), record,
//                                 payload and block digests in one; emptied once burned or
//                                 deleted
//       names/<nd>/<v>.m          the publication point: a link of the version file
//       names/<nd>/<v>.t          tombstone: `<v>.m` renamed here by a delete, never removed
//                                 (a version with one is deleted, whatever else is left)
//       names/<nd>/<v>.d          payload of a version written before version files, whose
//                                 `<v>.m` holds the record alone and `<v>.r` the block digests
//       keys/<nd>/<kd>.json       idempotency key binding (a link of the version file),
//                                 kd = sha256(key); linked to <v>.m to publish

export const STAGING_DIR = "staging";
export const SCOPES_DIR = "scopes";
export const SCOPE_CLAIMS_DIR = "scope-claims";
export const NAMES_DIR = "names";
export const NAME_CLAIMS_DIR = "name-claims";
export const KEYS_DIR = "keys";
export const NAME_LOG_DIR = "name-log";
export const NAME_INDEX_DIR = "name-index";

export const DIGEST_PATTERN = /^[0-9a-f]{64}$/;
export const SLOT_PATTERN = /^([0-9a-f]{64})\.json$/;
/** `<version>.<kind>`: r = reservation, d = data, m = metadata, t = tombstone. */
export const VERSION_FILE_PATTERN = /^([1-9][0-9]{0,15})\.([rdmt])$/;

export type VersionFileKind = "r" | "d" | "m" | "t";

export interface RootPaths {
  readonly root: string;
  readonly staging: string;
  readonly scopeClaims: string;
  readonly scopes: string;
}

export interface ScopePaths {
  readonly digest: string;
  readonly slot: string;
  readonly dir: string;
  readonly staging: string;
  readonly nameClaims: string;
  readonly names: string;
  readonly keys: string;
  readonly nameLog: string;
  readonly nameIndex: string;
}

export interface NamePaths {
  readonly digest: string;
  readonly slot: string;
  readonly dir: string;
}

export function rootPaths(root: string): RootPaths {
  return {
    root,
    staging: join(root, STAGING_DIR),
    scopeClaims: join(root, SCOPE_CLAIMS_DIR),
    scopes: join(root, SCOPES_DIR),
  };
}

export function scopePaths(rootDirs: RootPaths, digest: string): ScopePaths {
  const dir = child(rootDirs.scopes, digest);
  return {
    digest,
    slot: child(rootDirs.scopes, `${digest}.json`),
    dir,
    staging: child(dir, STAGING_DIR),
    nameClaims: child(dir, NAME_CLAIMS_DIR),
    names: child(dir, NAMES_DIR),
    keys: child(dir, KEYS_DIR),
    nameLog: child(dir, NAME_LOG_DIR),
    nameIndex: child(dir, NAME_INDEX_DIR),
  };
}

export function namePaths(scopeDirs: ScopePaths, name: string): NamePaths {
  const digest = sha256Hex(name);
  return {
    digest,
    slot: child(scopeDirs.names, `${digest}.json`),
    dir: child(scopeDirs.names, digest),
  };
}

/** The directory of one name's idempotency key bindings. */
export function keysDir(scopeDirs: Pick<ScopePaths, "keys">, nameDigest: string): string {
  return child(scopeDirs.keys, nameDigest);
}

/**
 * The binding file of one idempotency key of one name: `<kd>.json`, or for a later
 * generation (one that replaces bindings a power cut left torn, keys.ts) `<kd>.<g>.json`.
 */
export function keyFile(
  scopeDirs: Pick<ScopePaths, "keys">,
  nameDigest: string,
  key: string,
  generation = 0,
): string {
  const suffix = generation === 0 ? "" : `.${generation}`;
  return child(keysDir(scopeDirs, nameDigest), `${sha256Hex(key)}${suffix}.json`);
}

/** Most generations of one key's binding: each later one replaces one a power cut tore. */
export const MAX_BINDING_GENERATIONS = 100;

/** A key's binding file name, of any generation below MAX_BINDING_GENERATIONS. */
export const KEY_BINDING_PATTERN = /^([0-9a-f]{64})(?:\.[1-9][0-9]?)?\.json$/;

export function versionFile(nameDir: string, version: number, kind: VersionFileKind): string {
  return child(nameDir, `${version}.${kind}`);
}

export interface ArtifactPaths {
  readonly scopeSlot: string;
  readonly nameSlot: string;
  readonly nameDir: string;
  /** The version file (its reservation); once published, `metadata` is the same file. */
  readonly reservation: string;
  /**
   * The payload file of a version written before version files; see fsPayloadLocation for
   * where any version's payload lies.
   */
  readonly data: string;
  /** The publication point. */
  readonly metadata: string;
  /** Where a delete moves the metadata: the version stays deleted while it exists. */
  readonly tombstone: string;
}

/**
 * Where one version of an artifact lives under `root` (for diagnostics, tests and tools;
 * the files are the adapter's to write). `root` must be the store's real path.
 */
export function fsArtifactPaths(
  root: string,
  scope: Scope,
  name: string,
  version: number,
): ArtifactPaths {
  const scopeDirs = scopePaths(rootPaths(root), scopeDigest(scope));
  const nameDirs = namePaths(scopeDirs, name);
  return {
    scopeSlot: scopeDirs.slot,
    nameSlot: nameDirs.slot,
    nameDir: nameDirs.dir,
    reservation: versionFile(nameDirs.dir, version, "r"),
    data: versionFile(nameDirs.dir, version, "d"),
    metadata: versionFile(nameDirs.dir, version, "m"),
    tombstone: versionFile(nameDirs.dir, version, "t"),
  };
}
