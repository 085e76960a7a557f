import { sameScope, sha256Hex } from "../scope.js";
import type { ArtifactMeta, ArtifactService, Scope } from "../types.js";
import { expectEqual, expectSameJson, expectTrue, fail } from "./expect.js";
import type { ModelVersion } from "./model.js";

// Reading a service back completely, checking every page on the way, and comparing the
// records it returns with what the model expects.

/** Guards against an adapter whose cursors never end. */
const MAX_PAGES = 10_000;

/** Every live name in `scope`, page by page; checks page size, cursors and non-empty pages. */
export async function readAllNames(
  service: ArtifactService,
  scope: Scope,
  limit?: number,
): Promise<string[]> {
  const names: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < MAX_PAGES; pages++) {
    const page = await service.listNames(scope, {
      ...(limit === undefined ? {} : { limit }),
      ...(cursor === undefined ? {} : { cursor }),
    });
    expectTrue(sameScope(page.scope, scope), `listNames returned a page for another scope`);
    if (limit !== undefined) {
      expectTrue(
        page.items.length <= limit,
        `listNames page of ${page.items.length} exceeds limit ${limit}`,
      );
    }
    names.push(...page.items);
    if (page.nextCursor === undefined) return names;
    expectTrue(page.items.length > 0, "listNames returned an empty page with a nextCursor");
    expectEqual(
      page.nextCursor,
      page.items.at(-1),
      "listNames nextCursor (the last name returned)",
    );
    cursor = page.nextCursor;
  }
  return fail("listNames never stopped returning a nextCursor");
}

/** Every live version of `name`, page by page; checks pages carry no data. */
export async function readAllVersions(
  service: ArtifactService,
  scope: Scope,
  name: string,
  limit?: number,
): Promise<ArtifactMeta[]> {
  const versions: ArtifactMeta[] = [];
  let cursor: number | undefined;
  for (let pages = 0; pages < MAX_PAGES; pages++) {
    const page = await service.listVersions(scope, name, {
      ...(limit === undefined ? {} : { limit }),
      ...(cursor === undefined ? {} : { cursor }),
    });
    if (limit !== undefined) {
      expectTrue(
        page.items.length <= limit,
        `listVersions page of ${page.items.length} exceeds limit ${limit}`,
      );
    }
    for (const item of page.items) {
      expectTrue(!("data" in item), "a listVersions page carries data");
      versions.push(item);
    }
    if (page.nextCursor === undefined) return versions;
    expectTrue(page.items.length > 0, "listVersions returned an empty page with a nextCursor");
    expectEqual(
      page.nextCursor,
      page.items.at(-1)?.version,
      "listVersions nextCursor (the last version returned)",
    );
    cursor = page.nextCursor;
  }
  return fail("listVersions never stopped returning a nextCursor");
}

/** A record describes exactly `expected` of (scope, name). */
export function expectRecord(
  meta: ArtifactMeta,
  scope: Scope,
  name: string,
  expected: ModelVersion,
  what: string,
): void {
  expectTrue(
    sameScope(meta.scope, scope),
    `${what}: record is for another scope: ${JSON.stringify(meta.scope)}`,
  );
  expectEqual(meta.name, name, `${what}: name`);
  expectEqual(meta.version, expected.version, `${what}: version`);
  expectEqual(meta.mimeType, expected.mimeType, `${what}: mimeType`);
  expectEqual(meta.size, expected.data.byteLength, `${what}: size`);
  expectEqual(meta.sha256, sha256Hex(expected.data), `${what}: sha256`);
  expectTrue(Number.isFinite(meta.createdAt), `${what}: createdAt is not a finite number`);
  expectSameJson(meta.metadata, expected.metadata, `${what}: metadata`);
}

/** As `expectRecord`, and the bytes are exactly the expected bytes. */
export function expectArtifact(
  artifact: ArtifactMeta & { data: Uint8Array },
  scope: Scope,
  name: string,
  expected: ModelVersion,
  what: string,
): void {
  expectRecord(artifact, scope, name, expected, what);
  expectTrue(artifact.data instanceof Uint8Array, `${what}: data is not a Uint8Array`);
  expectTrue(
    Buffer.from(artifact.data).equals(Buffer.from(expected.data)),
    `${what}: data differs`,
  );
}
