import { describe, expect, it } from "vitest";
import { checkScopePageReply, type ListScopesOptions } from "../src/index.js";

// checkScopePageReply guards callers that must not trust a store's scope pages (the CLI,
// the kit's reader): each way a page can lie is invalid_service_reply, an honest page passes.

const users = { kind: "user", app: "a" } as const satisfies ListScopesOptions;
const user = (id: string) => ({ kind: "user", app: "a", user: id });

function rejected(page: unknown, options: ListScopesOptions | undefined, max = 10) {
  expect(() => checkScopePageReply(page, options, max)).toThrow(
    expect.objectContaining({ code: "invalid_service_reply" }),
  );
}

describe("checkScopePageReply", () => {
  it("passes an honest page, with and without a cursor", () => {
    const page = { items: [user("b"), user("é")], nextCursor: "é" };
    expect(checkScopePageReply(page, { ...users, cursor: "a", limit: 2 }, 10)).toBe(page);
    expect(checkScopePageReply({ items: [] }, undefined, 10)).toEqual({ items: [] });
  });

  it("rejects a page that is not one, or holds more than the limit (capped at the maximum)", () => {
    rejected(undefined, users);
    rejected({ items: "b" }, users);
    rejected({ items: [user("b"), user("c")] }, { ...users, limit: 1 });
    rejected({ items: [user("b"), user("c")] }, { ...users, limit: 5 }, 1);
  });

  it("rejects a scope of another kind, app or user than the level asked for", () => {
    rejected({ items: [{ kind: "app", app: "a" }] }, users);
    rejected({ items: [{ kind: "user", app: "b", user: "u" }] }, users);
    rejected(
      { items: [{ kind: "session", app: "a", user: "v", session: "s" }] },
      { kind: "session", app: "a", user: "u" },
    );
    rejected({ items: [{ kind: "user", app: "a" }] }, users);
  });

  it("rejects ids out of UTF-8 order, repeated, or not after the cursor", () => {
    // "😀" sorts before "ｚ" in UTF-16 but after it in UTF-8.
    rejected({ items: [user("😀"), user("ｚ")] }, users);
    rejected({ items: [user("b"), user("b")] }, users);
    rejected({ items: [user("b")] }, { ...users, cursor: "b" });
    rejected({ items: [user("a")] }, { ...users, cursor: "b" });
  });

  it("rejects a nextCursor on an empty page or other than the last id", () => {
    rejected({ items: [], nextCursor: "b" }, users);
    rejected({ items: [user("b"), user("c")], nextCursor: "b" }, users);
  });
});
