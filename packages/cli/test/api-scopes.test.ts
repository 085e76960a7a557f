import { MemoryArtifactService } from "@artifact-kit/memory";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DeveloperApi, startDeveloperApi } from "../src/index.js";

// GET /v1/scopes over real HTTP: the store's listScopes, paged, one level at a time, and
// only the scopes the resource provider allows.

const TOKEN = "scopes-token-0123456789abcdef";
const auth = { authorization: `Bearer ${TOKEN}` };
const bytes = new Uint8Array([1]);
let service: MemoryArtifactService;
let api: DeveloperApi;

beforeAll(async () => {
  service = new MemoryArtifactService();
  for (const app of ["b", "a", "é", "hidden"]) await service.put({ kind: "app", app }, "x", bytes);
  await service.put({ kind: "session", app: "a", user: "u1", session: "s2" }, "x", bytes);
  await service.put({ kind: "session", app: "a", user: "u1", session: "s1" }, "x", bytes);
  await service.put({ kind: "user", app: "a", user: "u0" }, "x", bytes);
  api = await startDeveloperApi({
    service,
    token: TOKEN,
    resourceProvider: ({ scope }) => (scope.app === "hidden" ? "forbidden" : "allow"),
  });
});
afterAll(async () => {
  await api.close();
  await service.close();
});

const get = async (query: string) => {
  const response = await fetch(`${api.url}/v1/scopes${query}`, { headers: auth });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

describe("scope discovery", () => {
  it("pages apps in UTF-8 order, leaving out those the provider forbids", async () => {
    const first = await get("?limit=2");
    expect(first).toEqual({
      status: 200,
      body: {
        kind: "app",
        items: [
          { kind: "app", app: "a" },
          { kind: "app", app: "b" },
        ],
        nextCursor: "b",
      },
    });
    const rest = await get("?cursor=b");
    expect(rest.body).toEqual({ kind: "app", items: [{ kind: "app", app: "é" }] });
  });

  it("lists an app's users and a user's sessions", async () => {
    expect((await get("?kind=user&app=a")).body.items).toEqual([
      { kind: "user", app: "a", user: "u0" },
      { kind: "user", app: "a", user: "u1" },
    ]);
    expect((await get("?kind=session&app=a&user=u1")).body.items).toEqual([
      { kind: "session", app: "a", user: "u1", session: "s1" },
      { kind: "session", app: "a", user: "u1", session: "s2" },
    ]);
  });

  it("refuses bad parameters with 400 and no token with 401", async () => {
    for (const query of [
      "?kind=tenant",
      "?kind=user",
      "?kind=session&app=a",
      "?limit=0",
      "?other=1",
      "?app=a%00",
    ]) {
      expect((await get(query)).status, query).toBe(400);
    }
    expect((await fetch(`${api.url}/v1/scopes`)).status).toBe(401);
  });
});
