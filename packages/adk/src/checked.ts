import {
  type Artifact,
  type ArtifactMeta,
  type ArtifactService,
  checkArtifactReply,
  checkMetaReply,
  checkNamePageReply,
  checkVersionPageReply,
  compareUtf8,
  invalidServiceReply,
  type Scope,
} from "@artifact-kit/core";

// The adapter's replies as the bridge hands them on: each record checked (core's reply.ts)
// for the exact scope and name asked, and the version when one was asked, before any byte
// or number reaches ADK. A failed check is invalid_service_reply.

export async function getChecked(
  service: ArtifactService,
  scope: Scope,
  name: string,
  version: number | "latest",
): Promise<Artifact> {
  const reply = await service.get(scope, name, { version });
  return checkArtifactReply(reply, scope, name, version === "latest" ? undefined : version);
}

export async function headChecked(
  service: ArtifactService,
  scope: Scope,
  name: string,
  version: number | "latest",
): Promise<ArtifactMeta> {
  const meta = checkMetaReply(await service.head(scope, name, { version }), scope, name);
  if (version !== "latest" && meta.version !== version) {
    throw invalidServiceReply("artifact record is for another version");
  }
  return meta;
}

/** Every name of `scope`; each page checked, and each cursor must move forward. */
export async function namesChecked(service: ArtifactService, scope: Scope): Promise<string[]> {
  const limit = service.capabilities().pagination.maxPageLimit;
  const names: string[] = [];
  let cursor: string | undefined;
  do {
    const reply = await service.listNames(scope, cursor === undefined ? {} : { cursor });
    const page = checkNamePageReply(reply, scope, limit);
    const first = page.items[0];
    if (cursor !== undefined && first !== undefined && compareUtf8(first, cursor) <= 0) {
      throw invalidServiceReply("name page does not start after its cursor");
    }
    if (
      page.nextCursor !== undefined &&
      cursor !== undefined &&
      compareUtf8(page.nextCursor, cursor) <= 0
    ) {
      throw invalidServiceReply("name cursor does not move forward");
    }
    names.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return names;
}

/**
 * Every version of `name` in `scope`, ascending; each page checked, each cursor forward.
 * With `stopAfter`, no page is read once more than that many versions are held: a caller
 * that refuses past a bound learns it is passed without listing everything.
 */
export async function versionsChecked(
  service: ArtifactService,
  scope: Scope,
  name: string,
  stopAfter = Number.POSITIVE_INFINITY,
): Promise<ArtifactMeta[]> {
  const limit = service.capabilities().pagination.maxPageLimit;
  const versions: ArtifactMeta[] = [];
  let cursor: number | undefined;
  do {
    const reply = await service.listVersions(scope, name, cursor === undefined ? {} : { cursor });
    const page = checkVersionPageReply(reply, scope, name, limit);
    const first = page.items[0];
    if (cursor !== undefined && first !== undefined && first.version <= cursor) {
      throw invalidServiceReply("version page does not start after its cursor");
    }
    if (page.nextCursor !== undefined && cursor !== undefined && page.nextCursor <= cursor) {
      throw invalidServiceReply("version cursor does not move forward");
    }
    versions.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor !== undefined && versions.length <= stopAfter);
  return versions;
}
