import type { ArtifactMeta, ArtifactService, Scope } from "@artifact-kit/core";

// ADK's listing calls return everything at once; these walk artifact-kit's pages to the end.

export async function allNames(service: ArtifactService, scope: Scope): Promise<string[]> {
  const names: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await service.listNames(scope, cursor === undefined ? {} : { cursor });
    names.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return names;
}

export async function allVersions(
  service: ArtifactService,
  scope: Scope,
  name: string,
): Promise<ArtifactMeta[]> {
  const versions: ArtifactMeta[] = [];
  let cursor: number | undefined;
  do {
    const page = await service.listVersions(scope, name, cursor === undefined ? {} : { cursor });
    versions.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return versions;
}
