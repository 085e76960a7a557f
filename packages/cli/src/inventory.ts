import {
  type ArtifactService,
  allNames,
  allVersions,
  isArtifactError,
  type RequestOptions,
  type Scope,
  scopeKey,
  sha256Hex,
} from "@artifact-kit/core";

interface NameInventory {
  readonly name: string;
  readonly versions: number;
  readonly bytes: number;
  readonly latestVersion: number;
}

/** What one exact scope holds: live names, live versions and their bytes. */
interface ScopeInventory {
  readonly scope: Scope;
  readonly names: number;
  readonly versions: number;
  readonly bytes: number;
  readonly byName: readonly NameInventory[];
}

/** Each call's request options (a deadline's remainder, say), asked afresh per call. */
type CallOptions = () => RequestOptions;
const noOptions: CallOptions = () => ({});

export async function takeInventory(
  service: ArtifactService,
  scope: Scope,
  options: CallOptions = noOptions,
): Promise<ScopeInventory> {
  const byName: NameInventory[] = [];
  for (const name of await allNames(service, scope, options())) {
    let versions = 0;
    let bytes = 0;
    let latestVersion = 0;
    for (const meta of await allVersions(service, scope, name, options())) {
      versions += 1;
      bytes += meta.size;
      latestVersion = Math.max(latestVersion, meta.version);
    }
    // A name whose last version was deleted between the two listings holds nothing.
    if (versions > 0) byName.push({ name, versions, bytes, latestVersion });
  }
  return {
    scope,
    names: byName.length,
    versions: byName.reduce((sum, entry) => sum + entry.versions, 0),
    bytes: byName.reduce((sum, entry) => sum + entry.bytes, 0),
    byName,
  };
}

/**
 * The token `rm-scope` asks for: it names the scope and what it held at the dry run, so a
 * token is void once the scope has gained or lost a version, or for any other scope.
 */
export function confirmationToken(inventory: ScopeInventory): string {
  const state = inventory.byName.map((entry) => [entry.name, entry.versions, entry.latestVersion]);
  return sha256Hex(JSON.stringify([scopeKey(inventory.scope), state])).slice(0, 16);
}

/** Deletes every name the inventory saw; one emptied meanwhile is already gone. */
export async function deleteInventory(
  service: ArtifactService,
  inventory: ScopeInventory,
  options: CallOptions = noOptions,
): Promise<void> {
  for (const { name } of inventory.byName) {
    try {
      await service.delete(inventory.scope, name, "all", options());
    } catch (error) {
      if (!isArtifactError(error, "not_found")) throw error;
    }
  }
}

export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

export function describeCounts(inventory: ScopeInventory): string {
  const { names, versions, bytes } = inventory;
  return `${plural(names, "name")}, ${plural(versions, "version")}, ${bytes} B`;
}
