import type { Scope } from "@artifact-kit/core";
import { MemoryArtifactService } from "@artifact-kit/memory";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DeveloperApi, startDeveloperApi } from "../src/index.js";

// Console sessions and the scope bound over real HTTP: the token is traded once for an
// HttpOnly cookie, state changes need the session's CSRF token, and `scope` bounds what
// any caller sees.

const TOKEN = "session-token-0123456789abcdef";
const inside: Scope = { kind: "user", app: "team", user: "ana" };
const outside: Scope = { kind: "user", app: "team", user: "bob" };
const bytes = new Uint8Array([1, 2, 3]);

let service: MemoryArtifactService;
let api: DeveloperApi;

beforeAll(async () => {
  service = new MemoryArtifactService();
  await service.put(inside, "a.txt", bytes);
  await service.put(outside, "b.txt", bytes);
  api = await startDeveloperApi({
    service,
    token: TOKEN,
    scope: { kind: "user", app: "team", user: "ana" },
  });
});
afterAll(async () => {
  await api.close();
  await service.close();
});

async function signIn(token = TOKEN): Promise<{ status: number; cookie?: string; csrf?: string }> {
  const response = await fetch(`${api.url}/session`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ token }),
  });
  const setCookie = response.headers.get("set-cookie") ?? undefined;
  const body = (await response.json()) as { csrf?: string };
  return {
    status: response.status,
    ...(setCookie === undefined ? {} : { cookie: setCookie }),
    ...(body.csrf === undefined ? {} : { csrf: body.csrf }),
  };
}

describe("console sessions", () => {
  it("trade the token for an HttpOnly, SameSite=Strict session cookie", async () => {
    const { status, cookie, csrf } = await signIn();
    expect(status).toBe(200);
    expect(cookie).toMatch(/^artifact_kit_session=[\w-]{43}; Path=\/; HttpOnly; SameSite=Strict$/);
    expect(cookie).not.toContain(TOKEN);
    expect(csrf).toMatch(/^[\w-]{43}$/);
    const wrong = await signIn(`${TOKEN}x`);
    expect(wrong.status).toBe(401);
    expect(wrong.cookie).toBeUndefined();
  });

  it("a session reads; a state change needs its CSRF token; sign-out ends it", async () => {
    const { cookie = "", csrf = "" } = await signIn();
    const session = cookie.split(";")[0] ?? "";
    const names = await fetch(`${api.url}/v1/apps/team/users/ana/names`, {
      headers: { cookie: session },
    });
    expect(await names.json()).toMatchObject({ items: ["a.txt"] });
    const del = (headers: Record<string, string>) =>
      fetch(`${api.url}/v1/apps/team/users/ana/names/a.txt/versions/latest`, {
        method: "DELETE",
        headers: { cookie: session, ...headers },
      });
    const forged = await del({});
    expect(forged.status).toBe(403);
    expect(await forged.text()).toContain("csrf");
    expect((await del({ "x-csrf-token": "x".repeat(43) })).status).toBe(403);
    expect((await service.listNames(inside)).items).toEqual(["a.txt"]);

    const out = await fetch(`${api.url}/session`, {
      method: "DELETE",
      headers: { cookie: session, "x-csrf-token": csrf },
    });
    expect(out.status).toBe(200);
    expect(out.headers.get("set-cookie")).toMatch(/Max-Age=0/);
    const after = await fetch(`${api.url}/v1/apps/team/users/ana/names`, {
      headers: { cookie: session },
    });
    expect(after.status).toBe(401);
  });

  it("the console page is served under a strict policy with no inline script", async () => {
    // The console is built with the package (npm run build), before its tests run.
    const page = await fetch(`${api.url}/console/`);
    expect(page.status).toBe(200);
    const policy = page.headers.get("content-security-policy") ?? "";
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).not.toContain("unsafe");
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await page.text()).not.toMatch(/<script(?![^>]*\bsrc=)/);
  });
});

describe("the scope bound", () => {
  const auth = { authorization: `Bearer ${TOKEN}` };

  it("refuses scopes outside it, their parents' own artifacts too", async () => {
    for (const path of [
      "/v1/apps/team/users/bob/names",
      "/v1/apps/team/names",
      "/v1/apps/team/users/bob/names/b.txt/versions/1/content",
      "/v1/apps/other/names",
    ]) {
      const response = await fetch(`${api.url}${path}`, { headers: auth });
      expect(response.status, path).toBe(403);
      await response.body?.cancel();
    }
    const inner = await fetch(`${api.url}/v1/apps/team/users/ana/sessions/s/names`, {
      headers: auth,
    });
    expect(inner.status).toBe(200);
    await inner.body?.cancel();
  });

  it("lists only the bound's own line of scopes", async () => {
    const apps = await fetch(`${api.url}/v1/scopes`, { headers: auth });
    expect(await apps.json()).toEqual({ kind: "app", items: [{ kind: "app", app: "team" }] });
    const users = await fetch(`${api.url}/v1/scopes?kind=user&app=team`, { headers: auth });
    expect(await users.json()).toEqual({ kind: "user", items: [inside] });
    const otherApp = await fetch(`${api.url}/v1/scopes?kind=user&app=other`, { headers: auth });
    expect(otherApp.status).toBe(403);
    await otherApp.body?.cancel();
  });
});
