import type {
  ArtifactMeta,
  ArtifactService,
  ListScopesOptions,
  RequestOptions,
  Scope,
} from "./types.js";

// For callers that need a whole listing (bridges to APIs without pages, tools, stores
// that rebuild an index): walk a service's pages to the end.

/** Every live name of `scope`, in UTF-8 byte order. */
export async function allNames(
  service: ArtifactService,
  scope: Scope,
  options: RequestOptions = {},
): Promise<string[]> {
  const names: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await service.listNames(
      scope,
      cursor === undefined ? options : { ...options, cursor },
    );
    names.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return names;
}

/** Every live version of `name` in `scope`, ascending, metadata only. */
export async function allVersions(
  service: ArtifactService,
  scope: Scope,
  name: string,
  options: RequestOptions = {},
): Promise<ArtifactMeta[]> {
  const versions: ArtifactMeta[] = [];
  let cursor: number | undefined;
  do {
    const page = await service.listVersions(
      scope,
      name,
      cursor === undefined ? options : { ...options, cursor },
    );
    versions.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return versions;
}

/** Every scope of one level that holds a live artifact (see ListScopesOptions), in UTF-8 order. */
export async function allScopes(
  service: ArtifactService,
  options: Omit<ListScopesOptions, "cursor"> = {},
): Promise<Scope[]> {
  const scopes: Scope[] = [];
  let cursor: string | undefined;
  do {
    const page = await service.listScopes(cursor === undefined ? options : { ...options, cursor });
    scopes.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return scopes;
}
