import type { ArtifactService, Scope } from "../../types.js";
import { freshScope } from "../arbitraries.js";
import { check, type LawContext } from "../check.js";
import { expectEqual } from "../expect.js";

// Cursors are exclusive positions, not ids of live things: a cursor whose name or version
// was deleted between pages still marks where the next page starts, and a page that says
// there is more is never followed by an empty page that says the same.

const NAMES = ["a", "a/b", "b", "é", "ｚ", "😀"]; // already in UTF-8 byte order

async function namePage(service: ArtifactService, scope: Scope, limit: number, cursor?: string) {
  const page = await service.listNames(scope, {
    limit,
    ...(cursor === undefined ? {} : { cursor }),
  });
  return { items: [...page.items], nextCursor: page.nextCursor };
}

/** listNames with a cursor equal to a name deleted between pages continues after it. */
async function nameCursorDeletedBetweenPages({ service }: LawContext) {
  const scope = freshScope("name-cursor");
  for (const name of NAMES) await service.put(scope, name, new Uint8Array([1]));
  const first = await namePage(service, scope, 2);
  expectEqual(first, { items: ["a", "a/b"], nextCursor: "a/b" }, "the first page");
  await service.delete(scope, "a/b", "all");
  expectEqual(
    await namePage(service, scope, 2, "a/b"),
    { items: ["b", "é"], nextCursor: "é" },
    'the page after cursor "a/b", deleted since',
  );
  await service.delete(scope, "é", "all");
  await service.delete(scope, "b", "all");
  expectEqual(
    await namePage(service, scope, 2, "é"),
    { items: ["ｚ", "😀"], nextCursor: undefined },
    'the last page after cursor "é", deleted since, with "b" gone too',
  );
  await service.delete(scope, "ｚ", "all");
  await service.delete(scope, "😀", "all");
  expectEqual(
    await namePage(service, scope, 2, "a"),
    { items: [], nextCursor: undefined },
    "a page after a cursor with nothing left after it",
  );
  expectEqual(
    await namePage(service, scope, 3, "zzz-never-there"),
    { items: [], nextCursor: undefined },
    "a page after a cursor that never existed, past every name",
  );
}

/**
 * Names that are directories of others, in UTF-8 byte order ("-" < "/" < "0"): a store that
 * walks a tree (directories, common prefixes) resumes after a cursor's whole subtree, or
 * before it, when the cursor is itself a name with names under it.
 */
const TREE = ["dir", "dir/a", "dir/a/b", "dir/a/b/c", "dir/b", "dir0", "e", "e/f"];

/** A cursor that is a name with names under it is a position like any other: they follow it. */
async function treeCursorsAreExclusivePositions({ service }: LawContext) {
  const scope = freshScope("tree-cursor");
  // Written leaves first, so that no store can list them in write order by chance.
  for (const name of [...TREE].reverse()) await service.put(scope, name, new Uint8Array([1]));
  for (const limit of [1, 2, 3]) {
    for (const cursor of [undefined, ...TREE]) {
      const after = TREE.slice(cursor === undefined ? 0 : TREE.indexOf(cursor) + 1);
      expectEqual(
        await namePage(service, scope, limit, cursor),
        {
          items: after.slice(0, limit),
          nextCursor: after.length > limit ? after[limit - 1] : undefined,
        },
        `the page of ${limit} after cursor ${JSON.stringify(cursor)}`,
      );
    }
  }
}

async function versionPage(service: ArtifactService, scope: Scope, limit: number, cursor?: number) {
  const page = await service.listVersions(scope, "v", {
    limit,
    ...(cursor === undefined ? {} : { cursor }),
  });
  return { versions: page.items.map((m) => m.version), nextCursor: page.nextCursor };
}

/** listVersions with a cursor version deleted between pages continues after it. */
async function versionCursorDeletedBetweenPages({ service }: LawContext) {
  const scope = freshScope("version-cursor");
  const versions: number[] = [];
  for (let i = 0; i < 7; i++)
    versions.push((await service.put(scope, "v", new Uint8Array([i]))).version);
  const [v1, v2, v3, v4, v5, v6, v7] = versions as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  expectEqual(
    await versionPage(service, scope, 2),
    { versions: [v1, v2], nextCursor: v2 },
    "the first page",
  );
  await service.delete(scope, "v", v2);
  expectEqual(
    await versionPage(service, scope, 2, v2),
    { versions: [v3, v4], nextCursor: v4 },
    `the page after cursor ${v2}, deleted since`,
  );
  await service.delete(scope, "v", v4);
  await service.delete(scope, "v", v5);
  expectEqual(
    await versionPage(service, scope, 2, v4),
    { versions: [v6, v7], nextCursor: undefined },
    `the last page after cursor ${v4}, deleted since, with ${v5} gone too`,
  );
  await service.delete(scope, "v", "latest");
  await service.delete(scope, "v", v6);
  expectEqual(
    await versionPage(service, scope, 2, v3),
    { versions: [], nextCursor: undefined },
    `a page after cursor ${v3} with nothing left after it`,
  );
  expectEqual(
    await versionPage(service, scope, 5, v7 + 100),
    { versions: [], nextCursor: undefined },
    "a page after a cursor above the high-water",
  );
}

/**
 * When the live items are an exact multiple of the page size, the last full page either
 * ends the listing or the page after it is empty without a cursor: never an empty page
 * that still has a cursor.
 */
async function noEmptyPageWithACursor({ service }: LawContext) {
  const scope = freshScope("exact-pages");
  for (const name of ["p1", "p2", "p3", "p4"]) await service.put(scope, name, new Uint8Array(0));
  for (let i = 0; i < 4; i++) await service.put(scope, "v", new Uint8Array([i]));
  for (const limit of [1, 2, 4]) {
    let cursor: string | undefined;
    for (let pages = 0; pages <= 4; pages++) {
      const page = await namePage(service, scope, limit, cursor);
      if (page.nextCursor !== undefined && page.items.length === 0) {
        expectEqual(page, { items: [], nextCursor: undefined }, `listNames limit ${limit}`);
      }
      if (page.nextCursor === undefined) break;
      cursor = page.nextCursor;
    }
    let versionCursor: number | undefined;
    for (let pages = 0; pages <= 4; pages++) {
      const page = await versionPage(service, scope, limit, versionCursor);
      if (page.nextCursor !== undefined && page.versions.length === 0) {
        expectEqual(page, { versions: [], nextCursor: undefined }, `listVersions limit ${limit}`);
      }
      if (page.nextCursor === undefined) break;
      versionCursor = page.nextCursor;
    }
  }
}

export const cursorLaws = [
  check(
    "cursors",
    "listNames with a cursor equal to a name deleted between pages continues after it",
    nameCursorDeletedBetweenPages,
  ),
  check(
    "cursors",
    "listVersions with a cursor version deleted between pages continues after it",
    versionCursorDeletedBetweenPages,
  ),
  check(
    "cursors",
    "a page with a cursor is never followed by an empty page that still has a cursor",
    noEmptyPageWithACursor,
  ),
  check(
    "cursors",
    "a name cursor with names under it (dir, dir/a, dir/a/b) is followed by exactly the names after it, at page sizes 1 to 3",
    treeCursorsAreExclusivePositions,
  ),
];
