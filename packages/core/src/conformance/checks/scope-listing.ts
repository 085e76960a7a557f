import { MAX_SCOPE_ID_BYTES } from "../../limits.js";
import type { ArtifactService, ListScopesOptions, Scope } from "../../types.js";
import { check, type LawContext, skip } from "../check.js";
import { expectArtifactError, expectEqual, expectTrue } from "../expect.js";
import { byUtf8Bytes } from "../model.js";
import { listedAmong, readAllScopeIds, scopePage } from "../observe-scopes.js";
import { LOOKALIKE_IDS } from "../values.js";

// listScopes: which apps, users of an app and sessions of a user hold a live version. A level
// lists an id exactly while some scope at or below it holds one: from the acknowledged put on,
// and no more once a delete (by any selector) removed the last one under it.

let uniqueCounter = 0;

/** An app id no other law uses (the kit's other laws all write under app "conformance"). */
export function freshApp(label: string): string {
  uniqueCounter += 1;
  return `scopes-${label}-${uniqueCounter}`;
}

const ONE_BYTE = new Uint8Array([1]);

/** Ids whose UTF-8 byte order differs from UTF-16 order (ｚ is U+FF5A, 😀 is astral). */
export const UTF8_ORDERED_IDS = ["A", "a", "a b", "a-", "é", "ｚ", "😀", "😀x"];

const app = (id: string): Scope => ({ kind: "app", app: id });
const user = (appId: string, id: string): Scope => ({ kind: "user", app: appId, user: id });
const session = (appId: string, userId: string, id: string): Scope => ({
  kind: "session",
  app: appId,
  user: userId,
  session: id,
});

/** What each level lists for the laws' apps, users and sessions. */
async function expectListed(
  service: ArtifactService,
  expected: {
    apps: [string[], string[]];
    users: [string, string[]][];
    sessions: [string, string, string[]][];
  },
  step: string,
) {
  const [among, apps] = expected.apps;
  expectEqual(await listedAmong(service, among), apps, `${step}: the apps listed`);
  for (const [appId, users] of expected.users) {
    expectEqual(
      await readAllScopeIds(service, { kind: "user", app: appId }, 2),
      users,
      `${step}: the users of ${JSON.stringify(appId)}`,
    );
  }
  for (const [appId, userId, sessions] of expected.sessions) {
    expectEqual(
      await readAllScopeIds(service, { kind: "session", app: appId, user: userId }, 2),
      sessions,
      `${step}: the sessions of ${JSON.stringify(appId)}/${JSON.stringify(userId)}`,
    );
  }
}

/** Scopes are listed from their first put until their last live version is deleted. */
async function listedWhileLive({ service }: LawContext) {
  const a = freshApp("live");
  const b = freshApp("live-app-only");
  const state = (apps: string[], u: string[], s1: string[], s2: string[]) => ({
    apps: [[a, b], apps] as [string[], string[]],
    users: [[a, u] as [string, string[]], [b, []] as [string, string[]]],
    sessions: [
      [a, "u1", s1] as [string, string, string[]],
      [a, "u2", s2] as [string, string, string[]],
    ],
  });
  await expectListed(service, state([], [], [], []), "before any put");
  await service.put(session(a, "u1", "s1"), "n", ONE_BYTE);
  const second = await service.put(session(a, "u1", "s1"), "n", ONE_BYTE);
  // u1's own user scope holds nothing: a session under it is what lists it (and its app).
  await expectListed(service, state([a], ["u1"], ["s1"], []), "after puts into session u1/s1");
  await service.put(user(a, "u2"), "a", ONE_BYTE);
  // Two versions: the delete("all") that empties u2 removes both at once.
  await service.put(user(a, "u2"), "b", ONE_BYTE);
  await service.put(user(a, "u2"), "b", ONE_BYTE);
  await service.put(app(b), "n", ONE_BYTE);
  // An app scope lists its app, and no user under it.
  await expectListed(
    service,
    state([a, b], ["u1", "u2"], ["s1"], []),
    "after puts into user u2 and app b",
  );
  await service.delete(session(a, "u1", "s1"), "n", "latest");
  await expectListed(
    service,
    state([a, b], ["u1", "u2"], ["s1"], []),
    'after delete("latest") left one version in s1',
  );
  await service.delete(session(a, "u1", "s1"), "n", second.version - 1);
  await expectListed(
    service,
    state([a, b], ["u2"], [], []),
    "after deleting s1's last version by number",
  );
  await service.delete(user(a, "u2"), "a", "all");
  await expectListed(
    service,
    state([a, b], ["u2"], [], []),
    'after delete("all") of one of u2\'s two names',
  );
  await service.delete(user(a, "u2"), "b", "all");
  await service.delete(app(b), "n", "latest");
  await expectListed(
    service,
    state([], [], [], []),
    "after the last version under each app was deleted",
  );
  await service.put(session(a, "u1", "s1"), "n", ONE_BYTE);
  await expectListed(
    service,
    state([a], ["u1"], ["s1"], []),
    "after a put into the emptied session s1",
  );
}

function pageOf(ids: readonly string[], cursor: string | undefined, limit: number) {
  const after = ids.filter((id) => cursor === undefined || byUtf8Bytes(id, cursor) > 0);
  return {
    ids: after.slice(0, limit),
    nextCursor: after.length > limit ? after[limit - 1] : undefined,
  };
}

/** Every page at several sizes and after every cursor, at the user and session levels. */
async function cursorsAndOrder({ service }: LawContext) {
  const a = freshApp("order");
  // Written in reverse: an adapter that lists in write order fails.
  for (const id of [...UTF8_ORDERED_IDS].reverse()) {
    await service.put(id.length % 2 === 0 ? user(a, id) : session(a, id, "s"), "n", ONE_BYTE);
    await service.put(session(a, "😀", id), "n", ONE_BYTE);
  }
  // The same user and session ids under another app: never listed under this one.
  const other = freshApp("order-other");
  await service.put(session(other, "😀", "0"), "n", ONE_BYTE);
  await service.put(user(other, "0"), "n", ONE_BYTE);
  const levels: [ListScopesOptions, string[]][] = [
    [{ kind: "user", app: a }, UTF8_ORDERED_IDS],
    [{ kind: "session", app: a, user: "😀" }, UTF8_ORDERED_IDS],
  ];
  for (const [options, ids] of levels) {
    for (const limit of [1, 2, 3, 5, undefined]) {
      expectEqual(
        await readAllScopeIds(service, options, limit),
        ids,
        `every page of listScopes(${JSON.stringify(options)}) at limit ${limit ?? "default"}`,
      );
    }
    for (const cursor of [undefined, ...ids, "0", "a a", "\u{10FFFF}"]) {
      expectEqual(
        await scopePage(service, {
          ...options,
          limit: 2,
          ...(cursor === undefined ? {} : { cursor }),
        }),
        pageOf(ids, cursor, 2),
        `the page of listScopes(${JSON.stringify(options)}) after cursor ${JSON.stringify(cursor)}, limit 2`,
      );
    }
  }
  // A cursor whose scope was emptied between pages still marks where the next page starts.
  const sessions = { kind: "session", app: a, user: "😀" } as const;
  await service.delete(session(a, "😀", "a"), "n", "all");
  expectEqual(
    await scopePage(service, { ...sessions, limit: 2, cursor: "a" }),
    { ids: ["a b", "a-"], nextCursor: "a-" },
    'the page after cursor "a", emptied since',
  );
  // Apps that differ only after one prefix, so that their own ids, not a counter, decide
  // their order (and a cursor compared in another collation skips or repeats some).
  const prefix = freshApp("apps");
  const apps = [...UTF8_ORDERED_IDS].reverse().map((suffix) => `${prefix}${suffix}`);
  for (const id of apps) await service.put(app(id), "n", ONE_BYTE);
  for (const limit of [1, 2]) {
    expectEqual(
      await listedAmong(service, apps, limit),
      [...apps].sort(byUtf8Bytes),
      `the new apps among every app, ${limit} per page`,
    );
  }
}

/**
 * Ids that differ only by case, whitespace or normalization are listed each as given, at
 * every level: an adapter that trims, folds or normalizes the ids it records for listing
 * lists one twice, or lists an id that holds nothing.
 */
async function lookalikesListedAsGiven({ service }: LawContext) {
  const a = freshApp("lookalike");
  const sorted = [...LOOKALIKE_IDS].sort(byUtf8Bytes);
  // Sessions under a user that is itself one of the lookalikes, so the users are exactly them.
  const owner = LOOKALIKE_IDS[0] as string;
  for (const id of LOOKALIKE_IDS) {
    await service.put(user(a, id), "n", ONE_BYTE);
    await service.put(session(a, owner, id), "n", ONE_BYTE);
  }
  // Apps are shared by every law: each lookalike joined to one fresh id on the side that
  // keeps its leading or trailing whitespace at an end of the app id.
  const apps = LOOKALIKE_IDS.map((id) => (id.startsWith(" ") ? `${id}${a}` : `${a}${id}`));
  for (const id of apps) await service.put(app(id), "n", ONE_BYTE);
  expectEqual(
    await readAllScopeIds(service, { kind: "user", app: a }, 5),
    sorted,
    "the lookalike users",
  );
  expectEqual(
    await readAllScopeIds(service, { kind: "session", app: a, user: owner }, 5),
    sorted,
    "the lookalike sessions",
  );
  expectEqual(
    await listedAmong(service, apps, 5),
    [...apps].sort(byUtf8Bytes),
    "the apps around the lookalikes",
  );
}

/** Bad options are refused with invalid_argument naming the field. */
async function badOptionsRefused({ service }: LawContext) {
  const long = "x".repeat(MAX_SCOPE_ID_BYTES + 1);
  const cases: [unknown, string][] = [
    [{ kind: "org" }, "kind"],
    [{ kind: "user" }, "app"],
    [{ kind: "session", app: "a" }, "user"],
    [{ kind: "app", app: "a" }, "app"],
    [{ kind: "user", app: "a", user: "u" }, "user"],
    [{ kind: "user", app: "" }, "app"],
    [{ kind: "user", app: "a\0b" }, "app"],
    [{ kind: "session", app: "a", user: long }, "user"],
    [{ kind: "user", app: "\ud800" }, "app"],
    [{ cursor: "" }, "cursor"],
    [{ cursor: 7 }, "cursor"],
    [{ cursor: long }, "cursor"],
    [{ cursor: "a\0" }, "cursor"],
    [{ limit: 0 }, "limit"],
    [{ limit: 1.5 }, "limit"],
    [{ limit: "3" }, "limit"],
    [{ prefix: "a" }, "options.prefix"],
    [{ timeoutMs: -1 }, "timeoutMs"],
  ];
  for (const [options, field] of cases) {
    const error = await expectArtifactError(
      () => service.listScopes(options as ListScopesOptions),
      "invalid_argument",
      `listScopes(${JSON.stringify(options)})`,
    );
    expectEqual(
      (error as { detail: { field?: string } }).detail.field,
      field,
      `the field named by listScopes(${JSON.stringify(options)})`,
    );
  }
}

/** limit defaults to and is capped at maxPageLimit. */
async function pageLimitCaps({ service }: LawContext) {
  const { maxPageLimit } = service.capabilities().pagination;
  if (maxPageLimit >= 300)
    return skip(`maxPageLimit = ${maxPageLimit} is too large; pass createBounded`);
  const a = freshApp("page-limit");
  const ids = Array.from({ length: maxPageLimit + 1 }, (_, i) => `s${String(i).padStart(4, "0")}`);
  for (const id of ids) await service.put(session(a, "u", id), "n", ONE_BYTE);
  const sessions = { kind: "session", app: a, user: "u" } as const;
  for (const options of [sessions, { ...sessions, limit: maxPageLimit + 5 }]) {
    const page = await scopePage(service, options);
    expectEqual(page.ids, ids.slice(0, maxPageLimit), `a page with ${JSON.stringify(options)}`);
    expectTrue(page.nextCursor !== undefined, "a capped page has a nextCursor");
  }
  expectEqual(await readAllScopeIds(service, sessions), ids, "every session over pages");
  return undefined;
}

export const scopeListingLaws = [
  check(
    "scope listing",
    "an app, user or session is listed once a scope at or below it holds a live version, and not after a delete of any selector removed the last",
    listedWhileLive,
  ),
  check(
    "scope listing",
    "pages are complete at every size and cursors exclusive (an emptied cursor included), in UTF-8 byte order of the ids",
    cursorsAndOrder,
  ),
  check(
    "scope listing",
    "app, user and session ids that differ only by case, whitespace or Unicode normalization are listed each as given",
    lookalikesListedAsGiven,
  ),
  check(
    "scope listing",
    "bad kind, app, user, cursor, limit or option is invalid_argument naming the field",
    badOptionsRefused,
  ),
  check("scope listing", "limit defaults to and is capped at maxPageLimit", pageLimitCaps, {
    needs: ["bounded"],
  }),
];
