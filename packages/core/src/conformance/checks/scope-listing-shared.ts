import type { ArtifactService, Scope } from "../../types.js";
import { check, type LawContext } from "../check.js";
import { expectEqual } from "../expect.js";
import { withHandles } from "../handles.js";
import { byUtf8Bytes } from "../model.js";
import { listedAmong, readAllScopeIds, scopePage } from "../observe-scopes.js";
import { seededBytes } from "../payload.js";
import { freshApp, UTF8_ORDERED_IDS } from "./scope-listing.js";

// listScopes at scale, through two handles on one backend, and between two tenants of one
// backend (another key prefix, schema or root): each lists exactly what is stored under its
// own prefix, whoever wrote it.

const ONE_BYTE = new Uint8Array([1]);

/** Distinct ids in no useful write order, non-ASCII among them: `i` then a seeded suffix. */
function scaleIds(count: number, seed: number): string[] {
  const bytes = seededBytes(count, seed);
  return Array.from({ length: count }, (_, i) => {
    const suffix = UTF8_ORDERED_IDS[(bytes[i] as number) % UTF8_ORDERED_IDS.length] as string;
    return `${((i * 7919) % count).toString(36)}${suffix}`;
  });
}

/** Hundreds of sessions, users and apps: complete at several page sizes, before and after deletes. */
async function hundredsOfScopes({ service }: LawContext) {
  const a = freshApp("scale");
  const sessions = scaleIds(240, 3);
  const users = scaleIds(60, 5);
  const apps = scaleIds(40, 7).map((suffix) => `${a}-${suffix}`);
  for (const id of sessions)
    await service.put({ kind: "session", app: a, user: "u", session: id }, "n", ONE_BYTE);
  for (const id of users)
    await service.put({ kind: "user", app: a, user: `u-${id}` }, "n", ONE_BYTE);
  for (const id of apps) await service.put({ kind: "app", app: id }, "n", ONE_BYTE);
  const { maxPageLimit } = service.capabilities().pagination;
  const sessionLevel = { kind: "session", app: a, user: "u" } as const;
  const expected = [...sessions].sort(byUtf8Bytes);
  for (const limit of [7, 64, maxPageLimit]) {
    expectEqual(
      await readAllScopeIds(service, sessionLevel, limit),
      expected,
      `every one of 240 sessions at limit ${limit}`,
    );
  }
  // With no limit, a page is maxPageLimit ids or all 240: a default hard-coded below a large
  // maxPageLimit shows only at a count like this (the bounded subject's small one hides it).
  const first = await scopePage(service, sessionLevel);
  expectEqual(
    first,
    {
      ids: expected.slice(0, maxPageLimit),
      nextCursor: expected.length > maxPageLimit ? expected[maxPageLimit - 1] : undefined,
    },
    `the first page of 240 sessions with no limit (maxPageLimit ${maxPageLimit})`,
  );
  expectEqual(
    await readAllScopeIds(service, { kind: "user", app: a }, 16),
    ["u", ...users.map((id) => `u-${id}`)].sort(byUtf8Bytes),
    "every one of 61 users at limit 16",
  );
  expectEqual(
    await listedAmong(service, apps, 9),
    [...apps].sort(byUtf8Bytes),
    "every one of 40 apps at limit 9",
  );
  const emptied = sessions.filter((_, i) => i % 3 === 0);
  for (const id of emptied) {
    await service.delete({ kind: "session", app: a, user: "u", session: id }, "n", "all");
  }
  expectEqual(
    await readAllScopeIds(service, sessionLevel, 13),
    expected.filter((id) => !emptied.includes(id)),
    `the 160 sessions left after ${emptied.length} were emptied, at limit 13`,
  );
}

/** What one handle writes or empties, the other lists at once. */
async function seenThroughAnotherHandle(handles: readonly ArtifactService[]) {
  const [first, second] = handles as [ArtifactService, ArtifactService];
  const a = freshApp("handles");
  const scope: Scope = { kind: "session", app: a, user: "u", session: "s" };
  // Each handle lists first, so a cache filled by that read and not refreshed is caught.
  for (const handle of handles) expectEqual(await listedAmong(handle, [a]), [], "before any put");
  await second.put(scope, "n", ONE_BYTE);
  for (const [i, handle] of handles.entries()) {
    expectEqual(
      await listedAmong(handle, [a]),
      [a],
      `after a put through handle 1, handle ${i}'s apps`,
    );
    expectEqual(
      await readAllScopeIds(handle, { kind: "session", app: a, user: "u" }),
      ["s"],
      `after a put through handle 1, handle ${i}'s sessions`,
    );
  }
  await first.delete(scope, "n", "all");
  for (const [i, handle] of handles.entries()) {
    expectEqual(
      await listedAmong(handle, [a]),
      [],
      `after a delete through handle 0, handle ${i}'s apps`,
    );
  }
}

/** A restarted service lists what was live before, and not what was emptied. */
async function survivesRestart({ service, reopen }: LawContext) {
  const a = freshApp("restart");
  await service.put({ kind: "session", app: a, user: "u", session: "kept" }, "n", ONE_BYTE);
  await service.put({ kind: "session", app: a, user: "u", session: "emptied" }, "n", ONE_BYTE);
  await service.put({ kind: "user", app: a, user: "v" }, "n", ONE_BYTE);
  await service.delete({ kind: "session", app: a, user: "u", session: "emptied" }, "n", "all");
  const restarted = await reopen();
  expectEqual(await listedAmong(restarted, [a]), [a], "the apps after a restart");
  expectEqual(
    await readAllScopeIds(restarted, { kind: "user", app: a }),
    ["u", "v"],
    "the users after a restart",
  );
  expectEqual(
    await readAllScopeIds(restarted, { kind: "session", app: a, user: "u" }),
    ["kept"],
    "the sessions after a restart",
  );
}

/** Two tenants of one backend list only their own scopes. */
async function neighboursListOnlyTheirOwn({ fresh }: LawContext) {
  await fresh(async (holder) => {
    const open = holder.subject.openNeighbour;
    if (!open) throw new TypeError("the subject has no openNeighbour");
    const neighbour = await open();
    try {
      const mine = freshApp("tenant-mine");
      const theirs = freshApp("tenant-theirs");
      const shared = freshApp("tenant-shared");
      await holder.service.put(
        { kind: "session", app: mine, user: "u", session: "s" },
        "n",
        ONE_BYTE,
      );
      await holder.service.put({ kind: "user", app: shared, user: "mine" }, "n", ONE_BYTE);
      await neighbour.put({ kind: "app", app: theirs }, "n", ONE_BYTE);
      await neighbour.put({ kind: "user", app: shared, user: "theirs" }, "n", ONE_BYTE);
      const apps = [mine, theirs, shared];
      expectEqual(
        await readAllScopeIds(holder.service, {}),
        [mine, shared].sort(byUtf8Bytes),
        "this tenant's apps",
      );
      expectEqual(
        await listedAmong(neighbour, apps),
        [theirs, shared].sort(byUtf8Bytes),
        "the neighbour's apps",
      );
      expectEqual(
        await readAllScopeIds(holder.service, { kind: "user", app: shared }),
        ["mine"],
        "this tenant's users of an app both use",
      );
      expectEqual(
        await readAllScopeIds(neighbour, { kind: "user", app: shared }),
        ["theirs"],
        "the neighbour's users of an app both use",
      );
    } finally {
      await neighbour.close().catch(() => undefined);
    }
  });
}

export const scopeListingSharedLaws = [
  check(
    "scope listing",
    "a restarted service lists the scopes live before it, and not one emptied before it",
    survivesRestart,
    { needs: ["reopen"] },
  ),
  check(
    "scope listing",
    "a scope written or emptied through one handle is listed or not by the other at once",
    ({ fresh }: LawContext) => fresh((holder) => withHandles(holder, 1, seenThroughAnotherHandle)),
    { needs: ["another"] },
  ),
  check(
    "scope listing",
    "a service under another prefix, schema or root of the same backend lists only its own scopes, and this one none of its",
    neighboursListOnlyTheirOwn,
    { needs: ["neighbour"] },
  ),
];

export const scopeListingScaleLaws = [
  check(
    "scale",
    "hundreds of scopes: 240 sessions, 61 users and 40 apps are listed completely at several page sizes (a page with no limit holds maxPageLimit), and the rest after a third are emptied",
    hundredsOfScopes,
  ),
];
