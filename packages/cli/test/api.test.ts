import { mkdtemp, rm } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ArtifactMeta, ArtifactService, Scope } from "@artifact-kit/core";
import { FsArtifactService } from "@artifact-kit/fs";
import { MemoryArtifactService } from "@artifact-kit/memory";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DeveloperApi, type ResourceProvider, startDeveloperApi } from "../src/index.js";
import { takeInventory } from "../src/inventory.js";

// Real HTTP requests against the API over a real fs store. Every refused request is
// followed by a check that the store is exactly as it was.

const TOKEN = "test-token-0123456789abcdef";
const alice: Scope = { kind: "session", app: "demo", user: "alice", session: "s1" };
const secret: Scope = { kind: "app", app: "secret" };
const forbidProvider: ResourceProvider = ({ scope }) =>
  scope.app === "secret" ? "forbidden" : "allow";

let root: string;
let service: FsArtifactService;
let api: DeveloperApi;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "artifact-kit-api-"));
  service = await FsArtifactService.open({ root });
  const bytes = new TextEncoder().encode("private bytes");
  for (const name of ["a.txt", "b/c.txt", "b/c.txt"]) {
    await service.put(alice, name, bytes, { metadata: { private: "custom" } });
  }
  await service.put(secret, "s.txt", bytes);
  api = await startDeveloperApi({ service, token: TOKEN, resourceProvider: forbidProvider });
});
afterAll(async () => {
  await api.close();
  await service.close();
  await rm(root, { recursive: true, force: true });
});

const alicePath = "/v1/apps/demo/users/alice/sessions/s1";

function request(path: string, init: RequestInit & { token?: string | null } = {}) {
  const { token = TOKEN, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (token !== null) headers.set("authorization", `Bearer ${token}`);
  return fetch(`${api.url}${path}`, { ...rest, headers });
}

/**
 * A GET sent byte for byte as written: fetch would resolve "." and ".." segments (and
 * their %2E spellings) before sending, hiding exactly what these tests send.
 */
function rawGet(path: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(api.url);
    const req = httpRequest({
      hostname,
      port,
      path,
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    req.on("response", async (response) => {
      let text = "";
      for await (const chunk of response) text += chunk;
      resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) });
    });
    req.on("error", reject);
    req.end();
  });
}

async function expectRefused(
  response: Response,
  status: number,
  code: string,
): Promise<Record<string, unknown>> {
  const body = (await response.json()) as { error: Record<string, unknown> };
  expect(response.status).toBe(status);
  expect(body.error.code).toBe(code);
  return body.error;
}

async function snapshot() {
  return Promise.all([takeInventory(service, alice), takeInventory(service, secret)]);
}

describe("reads", () => {
  it("lists names and metadata-only versions of an exact scope, with pages", async () => {
    const names = await request(`${alicePath}/names?limit=1`);
    expect(names.status).toBe(200);
    expect(await names.json()).toEqual({ scope: alice, items: ["a.txt"], nextCursor: "a.txt" });
    const rest = await (await request(`${alicePath}/names?cursor=a.txt`)).json();
    expect(rest).toEqual({ scope: alice, items: ["b/c.txt"] });

    const versions = await request(`${alicePath}/names/b%2Fc.txt/versions`);
    const body = (await versions.json()) as { items: ArtifactMeta[] };
    expect(versions.status).toBe(200);
    expect(body.items.map((v) => v.version)).toEqual([1, 2]);
    // Never bytes, never custom metadata.
    expect(Object.keys(body.items[0] ?? {}).sort()).toEqual([
      "createdAt",
      "mimeType",
      "sha256",
      "size",
      "version",
    ]);
    expect(JSON.stringify(body)).not.toContain("private");
  });

  it("an app scope is not its users' or sessions' scopes", async () => {
    const app = await (await request("/v1/apps/demo/names")).json();
    expect(app).toEqual({ scope: { kind: "app", app: "demo" }, items: [] });
  });
});

describe("refusals change nothing", () => {
  it("no token, a malformed header or a wrong token is 401", async () => {
    const before = await snapshot();
    await expectRefused(
      await request(`${alicePath}/names`, { token: null }),
      401,
      "capability_denied",
    );
    await expectRefused(
      await request(`${alicePath}/names`, { token: null, headers: { authorization: TOKEN } }),
      401,
      "capability_denied",
    );
    await expectRefused(
      await request(`${alicePath}/names`, { token: `${TOKEN}x` }),
      401,
      "capability_denied",
    );
    const del = await request(alicePath, {
      method: "DELETE",
      token: "wrong-token-0123456789abcdef",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ confirm: alice }),
    });
    await expectRefused(del, 401, "capability_denied");
    expect(await snapshot()).toEqual(before);
  });

  it("a scope the resource provider forbids is 403, for reads and deletes", async () => {
    const before = await snapshot();
    await expectRefused(await request("/v1/apps/secret/names"), 403, "capability_denied");
    await expectRefused(
      await request("/v1/apps/secret/names/s.txt/versions"),
      403,
      "capability_denied",
    );
    const del = await request("/v1/apps/secret", {
      method: "DELETE",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ confirm: secret }),
    });
    await expectRefused(del, 403, "capability_denied");
    expect(await snapshot()).toEqual(before);
  });

  it("path traversal and bad ids in every parameter are 400 or 404, never another scope", async () => {
    const before = await snapshot();
    const long = "x".repeat(257);
    const badPaths = [
      "/v1/apps/demo/users/alice/sessions/s1/names/%2E%2E/versions", // name ".."
      "/v1/apps/demo/users/alice/sessions/s1/names/a%2F..%2Fb/versions",
      "/v1/apps/demo/users/alice/sessions/s1/names/a%00/versions",
      `/v1/apps/demo/users/alice/sessions/s1/names/${"n".repeat(1025)}/versions`,
      "/v1/apps/de%00mo/names",
      "/v1/apps/demo/users/al%00ice/names",
      "/v1/apps/demo/users/alice/sessions/s%001/names",
      `/v1/apps/${long}/names`,
      `/v1/apps/demo/users/${long}/names`,
      `/v1/apps/demo/users/alice/sessions/${long}/names`,
      "/v1/apps/demo/users/alice/sessions/s1/names?cursor=..",
      "/v1/apps/demo/users/alice/sessions/s1/names?cursor=a%00",
      "/v1/apps/demo/users/alice/sessions/s1/names?limit=-1",
      "/v1/apps/demo/users/alice/sessions/s1/names?limit=1e3",
      "/v1/apps/demo/users/alice/sessions/s1/names?limit=1&limit=2",
      "/v1/apps/demo/users/alice/sessions/s1/names?other=1",
      "/v1/apps/demo/users/alice/sessions/s1/names/a.txt/versions?cursor=0",
      "/v1/apps/%E0%A4%A/names", // malformed percent-encoding
    ];
    for (const path of badPaths) {
      const response = await rawGet(path);
      expect(response.status, path).toBe(400);
      expect(response.body, path).toMatchObject({ error: { code: "invalid_argument" } });
    }
    // Raw dot segments are refused, never normalized.
    expect(
      (await rawGet("/v1/apps/demo/users/alice/sessions/s1/../../../../secret/names")).status,
    ).toBe(400);
    // An encoded ".." as an id is only an id: that (empty) scope, not a parent.
    const dots = await rawGet("/v1/apps/demo/users/%2E%2E/names");
    expect(dots).toEqual({
      status: 200,
      body: { scope: { kind: "user", app: "demo", user: ".." }, items: [] },
    });
    for (const path of ["/v2/apps/demo/names", "/v1/apps/demo/files", "/v1/apps/demo/users"]) {
      expect((await request(path)).status, path).toBe(404);
    }
    expect((await request(`${alicePath}/names`, { method: "POST" })).status).toBe(405);
    expect(await snapshot()).toEqual(before);
  });

  it("an oversized body is 413, a malformed confirmation 400 and a wrong token 409", async () => {
    const before = await snapshot();
    const json = { "content-type": "application/json" };
    const oversized = await request(alicePath, {
      method: "DELETE",
      headers: json,
      body: JSON.stringify({ confirm: alice, padding: "x".repeat(64 * 1024) }),
    });
    await expectRefused(oversized, 413, "invalid_argument");
    const wrongBodies: (string | undefined)[] = [
      undefined,
      "",
      "not json",
      JSON.stringify({}),
      JSON.stringify({ confirm: { ...alice, session: "s2" } }),
      JSON.stringify({ confirm: { kind: "user", app: "demo", user: "alice" } }),
      JSON.stringify({ confirm: alice, extra: true }),
      JSON.stringify({ confirm: alice }), // the path's scope echoed: no confirmation
    ];
    for (const body of wrongBodies) {
      const response = await request(alicePath, {
        method: "DELETE",
        headers: json,
        ...(body === undefined ? {} : { body }),
      });
      expect(response.status, String(body)).toBe(400);
      await response.body?.cancel();
    }
    const wrongToken = await request(alicePath, {
      method: "DELETE",
      headers: json,
      body: JSON.stringify({ confirm: "0000000000000000" }),
    });
    await expectRefused(wrongToken, 409, "invalid_argument");
    const wrongType = await request(alicePath, {
      method: "DELETE",
      headers: { "content-type": "text/plain" },
      body: JSON.stringify({ confirm: alice }),
    });
    await expectRefused(wrongType, 400, "invalid_argument");
    expect(await snapshot()).toEqual(before);
  });
});

describe("scope deletion", () => {
  it("deletes exactly the confirmed scope", async () => {
    const { confirm } = (await (await request(alicePath)).json()) as { confirm: string };
    const response = await request(alicePath, {
      method: "DELETE",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ confirm }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      scope: alice,
      deleted: { names: 2, versions: 3, bytes: 3 * 13 },
    });
    const [aliceAfter, secretAfter] = await snapshot();
    expect(aliceAfter.names).toBe(0);
    expect(secretAfter.names).toBe(1);
  });
});

describe("a store that answers for another scope", () => {
  it("is refused as unavailable, never relabelled", async () => {
    const memory = new MemoryArtifactService();
    const other: Scope = { kind: "app", app: "other" };
    await memory.put(other, "leak.txt", new Uint8Array([1]));
    const relabelling: ArtifactService = Object.assign(Object.create(null), {
      capabilities: () => memory.capabilities(),
      listNames: async () => ({ scope: { kind: "app", app: "mine" }, items: ["leak.txt"] }),
      listVersions: async () => memory.listVersions(other, "leak.txt"),
      close: () => memory.close(),
    });
    const leaky = await startDeveloperApi({ service: relabelling, token: TOKEN });
    try {
      const headers = { authorization: `Bearer ${TOKEN}` };
      const versions = await fetch(`${leaky.url}/v1/apps/mine/names/leak.txt/versions`, {
        headers,
      });
      expect(versions.status).toBe(503);
      const body = await versions.text();
      expect(JSON.parse(body).error.code).toBe("unavailable");
      expect(body).not.toContain("other");
    } finally {
      await leaky.close();
      await memory.close();
    }
  });
});
