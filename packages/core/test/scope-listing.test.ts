import { describe, expect, it } from "vitest";
import { pageLiveScopes, pageScopesWithNames } from "../src/adapter/index.js";
import {
  Deadline,
  type NamePage,
  type ParsedListScopes,
  type Scope,
  type ScopeLevel,
} from "../src/index.js";

// pageLiveScopes is what the adapters that know their stored scopes (fs, s3, gcs, sharded)
// page with: only live scopes count, an id is live when any scope under it is, and only the
// ids a page needs are tested.

const request = (level: ScopeLevel, limit: number, cursor?: string): ParsedListScopes => ({
  level,
  limit,
  cursor,
  deadline: Deadline.start({}),
});
const session = (app: string, user: string, id: string): Scope => ({
  kind: "session",
  app,
  user,
  session: id,
});

describe("pageLiveScopes", () => {
  it("lists an id while any scope under it is live, in UTF-8 order after the cursor", async () => {
    const known: Scope[] = [
      { kind: "app", app: "😀" },
      session("ｚ", "u", "dead"),
      session("ｚ", "v", "live"),
      { kind: "user", app: "a", user: "dead" },
      { kind: "app", app: "b" },
    ];
    const live = (scope: Scope) =>
      scope.kind !== "user" && !("session" in scope && scope.session === "dead");
    const apps = await pageLiveScopes(known, request({ kind: "app" }, 10), live);
    expect(apps.items.map((scope) => scope.app)).toEqual(["b", "ｚ", "😀"]);
    const after = await pageLiveScopes(known, request({ kind: "app" }, 1, "b"), live);
    expect(after).toEqual({ items: [{ kind: "app", app: "ｚ" }], nextCursor: "ｚ" });
    const users = await pageLiveScopes(known, request({ kind: "user", app: "ｚ" }, 10), live);
    expect(users.items).toEqual([{ kind: "user", app: "ｚ", user: "v" }]);
  });

  it("tests only the candidates a page needs, a bounded number at a time", async () => {
    const known = Array.from({ length: 100 }, (_, i) =>
      session("a", "u", `s${String(i).padStart(3, "0")}`),
    );
    const tested: string[] = [];
    // Every third session is emptied.
    const live = async (scope: Scope) => {
      tested.push(scope.kind === "session" ? scope.session : "");
      return Number((scope as { session: string }).session.slice(1)) % 3 !== 0;
    };
    const page = await pageLiveScopes(
      known,
      request({ kind: "session", app: "a", user: "u" }, 4),
      live,
    );
    expect(page.items.map((scope) => (scope as { session: string }).session)).toEqual([
      "s001",
      "s002",
      "s004",
      "s005",
    ]);
    expect(page.nextCursor).toBe("s005");
    // Exactly the candidates up to the fifth live one, which says there is more: s000 to s007.
    expect(tested).toEqual(Array.from({ length: 8 }, (_, i) => `s00${i}`));
  });

  it("ends with no cursor when nothing live follows, and stops at an expired deadline", async () => {
    const known = [session("a", "u", "x"), session("a", "u", "y")];
    const level = { kind: "session", app: "a", user: "u" } as const;
    const page = await pageLiveScopes(
      known,
      request(level, 2),
      (scope) => "session" in scope && scope.session === "x",
    );
    expect(page).toEqual({ items: [session("a", "u", "x")] });
    const aborted = new AbortController();
    aborted.abort();
    const expired = { ...request(level, 2), deadline: Deadline.start({ signal: aborted.signal }) };
    await expect(pageLiveScopes(known, expired, () => true)).rejects.toMatchObject({
      code: "aborted",
    });
  });

  it("pageScopesWithNames asks each candidate for one name under the listing's deadline", async () => {
    const known = [session("a", "u", "empty"), session("a", "u", "full")];
    const level = { kind: "session", app: "a", user: "u" } as const;
    const asked = request(level, 5);
    const page = await pageScopesWithNames(known, asked, (names): NamePage => {
      expect(names).toMatchObject({ limit: 1, cursor: undefined, prefix: undefined });
      expect(names.deadline).toBe(asked.deadline);
      return {
        scope: names.scope,
        items: names.scope.kind === "session" && names.scope.session === "full" ? ["n"] : [],
      };
    });
    expect(page).toEqual({ items: [session("a", "u", "full")] });
  });
});
