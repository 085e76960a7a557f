import type { ArtifactService, Scope } from "@artifact-kit/core";
import { MemoryArtifactService } from "@artifact-kit/memory";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDeveloperApi } from "../src/index.js";
import {
  MAX_URL_SECONDS,
  startUrlBackend,
  type UrlBackend,
  withDownloadUrls,
} from "./support/download-urls.js";

// Serve's links through a store that makes download URLs of its own (createDownloadUrl):
// the store's URL when it has one, serve's own link otherwise, and never a URL that does
// not answer what was asked.

const TOKEN = "urls-token-0123456789abcdef";
const auth = { authorization: `Bearer ${TOKEN}` };
const scope: Scope = { kind: "user", app: "urls", user: "ana" };
const base = "/v1/apps/urls/users/ana/names/report.txt";

let memory: MemoryArtifactService;
let backend: UrlBackend;

async function withServe<T>(service: ArtifactService, work: (url: string) => Promise<T>) {
  const api = await startDeveloperApi({ service, token: TOKEN });
  try {
    return await work(api.url);
  } finally {
    await api.close();
  }
}

const makeLink = (url: string, expiresInSeconds: number) =>
  fetch(`${url}${base}/versions/latest/link`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ expiresInSeconds }),
  });

beforeAll(async () => {
  memory = new MemoryArtifactService();
  await memory.put(scope, "report.txt", new TextEncoder().encode("first"));
  await memory.put(scope, "report.txt", new TextEncoder().encode("second, the latest"));
  backend = await startUrlBackend(memory);
});
afterAll(async () => {
  await backend?.close();
  await memory?.close();
});

describe("links through the store's own download URLs", () => {
  it("hands out the store's URL for the exact version, which serves its bytes", async () => {
    backend.asked.length = 0;
    const before = Date.now();
    const made = await withServe(withDownloadUrls(memory, backend), async (url) => {
      const response = await makeLink(url, 600);
      expect(response.status).toBe(200);
      return (await response.json()) as { signedBy: string; url: string; expiresAt: number };
    });
    expect(made.signedBy).toBe("backend");
    expect(made.url.startsWith(`${backend.url}/links/`)).toBe(true);
    expect(made.expiresAt).toBeGreaterThanOrEqual(before + 600_000);
    // "latest" was resolved by serve before the store was asked: the URL cannot drift.
    expect(backend.asked).toHaveLength(1);
    expect(backend.asked[0]).toMatchObject({ version: 2, expiresInSeconds: 600 });
    const download = await fetch(made.url);
    expect(download.status).toBe(200);
    expect(await download.text()).toBe("second, the latest");
    const at = made.url.length - 2;
    const altered = `${made.url.slice(0, at)}${made.url[at] === "A" ? "B" : "A"}${made.url.slice(at + 1)}`;
    expect((await fetch(altered)).status).toBe(403);
  });

  it("signs its own link when the expiry is past the store's bound", async () => {
    backend.asked.length = 0;
    const made = await withServe(withDownloadUrls(memory, backend), async (url) => {
      const response = await makeLink(url, MAX_URL_SECONDS + 1);
      return (await response.json()) as { signedBy: string; path: string };
    });
    expect(made.signedBy).toBe("serve");
    expect(made.path.startsWith("/links/")).toBe(true);
    expect(backend.asked).toHaveLength(0);
  });

  it("signs its own link over a store without the capability", async () => {
    const made = await withServe(memory, async (url) => (await makeLink(url, 60)).json());
    expect(made).toMatchObject({ signedBy: "serve", path: expect.stringMatching(/^\/links\//) });
  });

  it("never hands on a URL for another version than was asked", async () => {
    const refused = await withServe(withDownloadUrls(memory, backend, -1), async (url) => {
      const response = await makeLink(url, 60);
      return { status: response.status, body: await response.text() };
    });
    expect(refused.status).toBe(503);
    expect(refused.body).toContain("unavailable");
    expect(refused.body).not.toContain("/links/");
  });

  it("asks the store nothing for a caller the resource provider refuses", async () => {
    backend.asked.length = 0;
    const service = withDownloadUrls(memory, backend);
    const api = await startDeveloperApi({
      service,
      token: TOKEN,
      resourceProvider: ({ operation }) => (operation === "createLink" ? "forbidden" : "allow"),
    });
    try {
      expect((await makeLink(api.url, 60)).status).toBe(403);
    } finally {
      await api.close();
    }
    expect(backend.asked).toHaveLength(0);
  });
});
