import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Scope } from "@artifact-kit/core";
import { FsArtifactService } from "@artifact-kit/fs";
import { MemoryArtifactService } from "@artifact-kit/memory";
import { describe, expect, it } from "vitest";
import { type DeveloperApiOptions, startDeveloperApi } from "../src/index.js";

// The API's policies over real HTTP: what a failure may reveal, how long a request may take,
// what confirms a scope deletion, and which browser origins may call it.

const TOKEN = "policy-token-0123456789abcdef";
const auth = { authorization: `Bearer ${TOKEN}` };
const scope: Scope = { kind: "app", app: "policy" };
const bytes = new Uint8Array([1, 2, 3]);

async function withApi<T>(
  options: Omit<DeveloperApiOptions, "token">,
  body: (url: string) => Promise<T>,
): Promise<T> {
  const api = await startDeveloperApi({ token: TOKEN, ...options });
  try {
    return await body(api.url);
  } finally {
    await api.close();
  }
}

describe("error bodies", () => {
  it("never carry a server path or a backend's message", async () => {
    const root = await mkdtemp(join(tmpdir(), "artifact-kit-api-paths-"));
    const service = await FsArtifactService.open({ root });
    try {
      await service.put(scope, "n.txt", bytes);
      // The store's root replaced by a file: every listing fails inside the adapter, whose
      // message names the absolute path of the scope's directory.
      await rm(root, { recursive: true });
      await writeFile(root, "not a directory");
      await withApi({ service }, async (url) => {
        for (const path of ["/v1/apps/policy/names", "/v1/apps/policy/names/n.txt/versions"]) {
          const response = await fetch(`${url}${path}`, { headers: auth });
          const text = await response.text();
          expect(response.status, path).toBe(503);
          expect(JSON.parse(text).error.code).toBe("unavailable");
          expect(text, path).not.toContain(root);
          expect(text, path).not.toMatch(/ENOTDIR|scandir/);
        }
      });
    } finally {
      await service.close();
      await rm(root, { recursive: true, force: true });
    }
  });

  it("never carry what a resource provider threw", async () => {
    const service = new MemoryArtifactService();
    const resourceProvider = () => {
      throw new Error("db at /srv/secret/policy.sqlite is locked");
    };
    await withApi({ service, resourceProvider }, async (url) => {
      const response = await fetch(`${url}/v1/apps/policy/names`, { headers: auth });
      const text = await response.text();
      expect(response.status).toBe(503);
      expect(text).not.toContain("/srv/secret");
    });
    await service.close();
  });
});

describe("server-side deadline", () => {
  it("answers 504 when the resource provider outlives the request's deadline", async () => {
    const service = new MemoryArtifactService();
    let release: () => void = () => {};
    const resourceProvider = () =>
      new Promise<"allow">((resolve) => {
        release = () => resolve("allow");
      });
    await withApi({ service, resourceProvider, requestTimeoutMs: 200 }, async (url) => {
      // The provider never answers until release(): a 504 can only come from the deadline.
      const response = await fetch(`${url}/v1/apps/policy/names`, { headers: auth });
      expect(response.status).toBe(504);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("timeout");
    });
    release();
    await service.close();
  });

  it("hands the deadline's signal to the resource provider and the store", async () => {
    const service = new MemoryArtifactService();
    let seen: AbortSignal | undefined;
    const resourceProvider = ({ signal }: { signal: AbortSignal }) => {
      seen = signal;
      return "allow" as const;
    };
    await withApi({ service, resourceProvider, requestTimeoutMs: 1_000 }, async (url) => {
      expect((await fetch(`${url}/v1/apps/policy/names`, { headers: auth })).status).toBe(200);
    });
    expect(seen).toBeInstanceOf(AbortSignal);
    await service.close();
  });

  it("validates requestTimeoutMs", async () => {
    const service = new MemoryArtifactService();
    for (const requestTimeoutMs of [0, -1, 1.5, 300_001, Number.NaN]) {
      await expect(
        startDeveloperApi({ service, token: TOKEN, requestTimeoutMs }),
      ).rejects.toMatchObject({ code: "invalid_argument", detail: { field: "requestTimeoutMs" } });
    }
    await service.close();
  });
});

describe("scope deletion is confirmed by the scope's current contents", () => {
  it("GET on the scope gives a token; it is void once the scope changes", async () => {
    const service = new MemoryArtifactService();
    await service.put(scope, "a.txt", bytes);
    await withApi({ service }, async (url) => {
      const summary = await fetch(`${url}/v1/apps/policy`, { headers: auth });
      expect(summary.status).toBe(200);
      const { confirm, ...counts } = (await summary.json()) as { confirm: string };
      expect(counts).toEqual({ scope, names: 1, versions: 1, bytes: 3 });
      expect(confirm).toMatch(/^[0-9a-f]{16}$/);

      const del = (body: unknown) =>
        fetch(`${url}/v1/apps/policy`, {
          method: "DELETE",
          headers: { ...auth, "content-type": "application/json" },
          body: JSON.stringify(body),
        });
      // The path's scope echoed back is no confirmation any more.
      expect((await del({ confirm: scope })).status).toBe(400);
      // A version added after the token was read voids it.
      await service.put(scope, "a.txt", bytes);
      const stale = await del({ confirm });
      expect(stale.status).toBe(409);
      expect(((await stale.json()) as { error: { code: string } }).error.code).toBe(
        "invalid_argument",
      );
      expect((await service.listVersions(scope, "a.txt")).items).toHaveLength(2);

      const fresh = (await (await fetch(`${url}/v1/apps/policy`, { headers: auth })).json()) as {
        confirm: string;
      };
      const done = await del({ confirm: fresh.confirm });
      expect(done.status).toBe(200);
      expect(await done.json()).toEqual({
        scope,
        deleted: { names: 1, versions: 2, bytes: 6 },
      });
      expect((await service.listNames(scope)).items).toEqual([]);
    });
    await service.close();
  });
});

describe("CORS and methods", () => {
  it("sends no CORS headers by default, and Allow on 405", async () => {
    const service = new MemoryArtifactService();
    await withApi({ service }, async (url) => {
      const plain = await fetch(`${url}/v1/apps/policy/names`, {
        headers: { ...auth, origin: "https://tool.example" },
      });
      expect(plain.status).toBe(200);
      expect(plain.headers.get("access-control-allow-origin")).toBeNull();
      const preflight = await fetch(`${url}/v1/apps/policy/names`, {
        method: "OPTIONS",
        headers: { origin: "https://tool.example", "access-control-request-method": "GET" },
      });
      expect(preflight.status).toBe(405);
      expect(preflight.headers.get("access-control-allow-origin")).toBeNull();

      const post = await fetch(`${url}/v1/apps/policy/names`, { method: "POST", headers: auth });
      expect(post.status).toBe(405);
      expect(post.headers.get("allow")).toBe("GET");
      const put = await fetch(`${url}/v1/apps/policy`, { method: "PUT", headers: auth });
      expect(put.status).toBe(405);
      expect(put.headers.get("allow")).toBe("GET, DELETE");
    });
    await service.close();
  });

  it("answers allowed origins only, preflight included", async () => {
    const service = new MemoryArtifactService();
    const origin = "https://tool.example";
    await withApi({ service, allowedOrigins: [origin] }, async (url) => {
      const preflight = await fetch(`${url}/v1/apps/policy`, {
        method: "OPTIONS",
        headers: { origin, "access-control-request-method": "DELETE" },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get("access-control-allow-origin")).toBe(origin);
      expect(preflight.headers.get("access-control-allow-methods")).toBe("GET, PUT, POST, DELETE");
      expect(preflight.headers.get("access-control-allow-headers")).toBe(
        "authorization, content-type, x-artifact-metadata, x-csrf-token",
      );
      // No credentials across origins: a session cookie never rides a cross-origin call.
      expect(preflight.headers.get("access-control-allow-credentials")).toBeNull();
      const read = await fetch(`${url}/v1/apps/policy/names`, { headers: { ...auth, origin } });
      expect(read.headers.get("access-control-allow-origin")).toBe(origin);
      expect(read.headers.get("vary")).toBe("Origin");
      expect(read.headers.get("access-control-expose-headers")).toContain("content-range");

      const other = "https://evil.example";
      const refused = await fetch(`${url}/v1/apps/policy/names`, {
        method: "OPTIONS",
        headers: { origin: other, "access-control-request-method": "GET" },
      });
      expect(refused.status).toBe(403);
      expect(refused.headers.get("access-control-allow-origin")).toBeNull();
      const otherRead = await fetch(`${url}/v1/apps/policy/names`, {
        headers: { ...auth, origin: other },
      });
      expect(otherRead.headers.get("access-control-allow-origin")).toBeNull();
    });
    await service.close();
  });

  it("validates allowed origins", async () => {
    const service = new MemoryArtifactService();
    const bad = [
      ["*"],
      ["https://*.example"],
      ["http://*"],
      ["https://tool*.example:8443"],
      ["https://tool.example", "https://*.tool.example"],
      ["https://tool.example/"],
      ["https://tool.example/path"],
      ["tool.example"],
      ["ftp://tool.example"],
      ["https://user@tool.example"],
      ["null"],
      "https://tool.example",
    ];
    for (const allowedOrigins of bad) {
      await expect(
        startDeveloperApi({
          service,
          token: TOKEN,
          allowedOrigins: allowedOrigins as readonly string[],
        }),
      ).rejects.toMatchObject({ code: "invalid_argument", detail: { field: "allowedOrigins" } });
    }
    // Hosts as browsers send them: names (also with `_`), IPv4, IPv6, a port.
    const good = [
      "https://tool.example:8443",
      "http://my_host.internal",
      "http://127.0.0.1:5173",
      "http://[::1]:5173",
      "http://localhost",
    ];
    const api = await startDeveloperApi({ service, token: TOKEN, allowedOrigins: good });
    await api.close();
    await service.close();
  });
});
