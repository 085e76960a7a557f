import {
  type ArtifactMeta,
  type ArtifactService,
  allVersions,
  isArtifactError,
  type Scope,
} from "@artifact-kit/core";

// The source's side of a copy: its names page by page, each name's versions as one snapshot.

/** Every live name of `scope` that starts with `prefix`, one page at a time. */
export async function* namesOf(
  service: ArtifactService,
  scope: Scope,
  prefix: string | undefined,
): AsyncGenerator<string> {
  let cursor: string | undefined;
  do {
    const page = await service.listNames(scope, {
      ...(prefix === undefined ? {} : { prefix }),
      ...(cursor === undefined ? {} : { cursor }),
    });
    yield* page.items;
    cursor = page.nextCursor;
  } while (cursor !== undefined);
}

/** The live versions of a name, ascending; none when the name has gone meanwhile. */
export async function versionsOf(
  service: ArtifactService,
  scope: Scope,
  name: string,
): Promise<ArtifactMeta[]> {
  try {
    return await allVersions(service, scope, name);
  } catch (error) {
    if (isArtifactError(error, "not_found")) return [];
    throw error;
  }
}

/** How many versions the copy will look at: the total its progress counts towards. */
export async function countVersions(
  service: ArtifactService,
  scopes: readonly Scope[],
  prefix: string | undefined,
): Promise<number> {
  let total = 0;
  for (const scope of scopes) {
    for await (const name of namesOf(service, scope, prefix)) {
      total += (await versionsOf(service, scope, name)).length;
    }
  }
  return total;
}
