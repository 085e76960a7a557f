import { isArtifactError } from "../../errors.js";
import type { ArtifactService, Scope } from "../../types.js";
import { expectEqual, fail } from "../expect.js";
import { readAllNames, readAllVersions } from "../observe.js";
import { readAllScopeIds } from "../observe-scopes.js";

// Every read of one name, made with no fault armed, asked the same question: which versions
// are live? After a failed call they must all give the same answer, whatever it is, or a
// caller acting on one read (a listing) is contradicted by the next (a delete, a get).

/** A session scope whose app holds nothing else, so that each level of listScopes is exact. */
export type LoneScope = Scope & { kind: "session" };

/** A payload the kit can tell from its first byte: the tag's byte, `size` times. */
export const taggedPayload = (tag: number, size = 3) => new Uint8Array(size).fill(tag);

async function versionOr<T>(read: () => Promise<T>, version: (value: T) => number) {
  try {
    return version(await read());
  } catch (error) {
    if (isArtifactError(error, "not_found")) return "not_found" as const;
    throw error;
  }
}

/** What agreedVersions checks the reads against. */
export interface Agreement {
  /** The tag of each version's payload (undefined: no put made it). */
  readonly tagAt: (version: number) => number | undefined;
  /** Versions that read not_found by number unless listed. */
  readonly gone: Iterable<number>;
  readonly step: string;
  /** Read each listed version by number too (default true). */
  readonly eachLive?: boolean;
}

/**
 * The versions of `name` every read agrees are live (ascending): listVersions, list, listNames,
 * listScopes (the session, with its scope's one name), head and get of "latest" and of each
 * listed version, whose bytes carry the tag `tagAt` gives it; and each of `gone` not listed
 * reads not_found.
 */
export async function agreedVersions(
  service: ArtifactService,
  scope: LoneScope,
  name: string,
  { tagAt, gone, step, eachLive = true }: Agreement,
): Promise<number[]> {
  const listed = (await readAllVersions(service, scope, name)).map((meta) => meta.version);
  const live = listed.length > 0;
  const inList = (await service.list(scope)).filter((meta) => meta.name === name);
  expectEqual(
    inList.map((meta) => meta.version),
    listed,
    `${step}: list, beside listVersions`,
  );
  expectEqual(await readAllNames(service, scope), live ? [name] : [], `${step}: listNames`);
  expectEqual(
    await readAllScopeIds(service, { kind: "session", app: scope.app, user: scope.user }),
    live ? [scope.session] : [],
    `${step}: listScopes of the session's user`,
  );
  const latest = listed.at(-1) ?? "not_found";
  const ofMeta = (meta: { version: number }) => meta.version;
  expectEqual(await versionOr(() => service.head(scope, name), ofMeta), latest, `${step}: head`);
  expectEqual(await versionOr(() => service.get(scope, name), ofMeta), latest, `${step}: get`);
  for (const version of eachLive ? listed : []) {
    const pinned = { version };
    const at = `${step}: version ${version}, listed,`;
    expectEqual(await versionOr(() => service.head(scope, name, pinned), ofMeta), version, at);
    const artifact = await service.get(scope, name, pinned);
    const tag = tagAt(version);
    if (tag === undefined) fail(`${at} was never put`);
    expectEqual([...artifact.data], [...taggedPayload(tag)], `${at} its bytes`);
  }
  for (const version of gone) {
    if (listed.includes(version)) continue;
    const pinned = { version };
    const at = `${step}: version ${version}, not listed, read by number`;
    expectEqual(await versionOr(() => service.head(scope, name, pinned), ofMeta), "not_found", at);
    expectEqual(await versionOr(() => service.get(scope, name, pinned), ofMeta), "not_found", at);
  }
  return listed;
}
