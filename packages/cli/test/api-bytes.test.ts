import {
  type ArtifactService,
  type ArtifactTransfer,
  type Scope,
  unavailable,
} from "@artifact-kit/core";
import { contractOnly } from "@artifact-kit/core/conformance";
import { MemoryArtifactService } from "@artifact-kit/memory";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signLink } from "../src/api/links.js";
import { type DeveloperApi, startDeveloperApi } from "../src/index.js";

// Bytes over real HTTP: downloads (whole, ranges, signed links), streamed uploads with their
// bound, deletions, and what each refusal leaves in the store.

const TOKEN = "bytes-token-0123456789abcdef";
const SECRET = "link-secret-0123456789abcdef-0123456789";
const auth = { authorization: `Bearer ${TOKEN}` };
const scope: Scope = { kind: "session", app: "demo", user: "ana", session: "s1" };
const base = "/v1/apps/demo/users/ana/sessions/s1/names";
const text = new TextEncoder().encode("0123456789");

let service: MemoryArtifactService;
let api: DeveloperApi;

beforeAll(async () => {
  service = new MemoryArtifactService({ maxArtifactBytes: 1024 * 1024 });
  await service.put(scope, "docs/a b.txt", text, {
    mimeType: "text/plain",
    metadata: { step: 3, note: "<script>alert(1)</script>" },
  });
  await service.put(scope, "page.html", new TextEncoder().encode("<script>alert(1)</script>"), {
    mimeType: "text/html",
  });
  api = await startDeveloperApi({
    service,
    token: TOKEN,
    linkSecret: SECRET,
    maxUploadBytes: 4096,
  });
});
afterAll(async () => {
  await api.close();
  await service.close();
});

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${api.url}${path}`, { headers: { ...auth, ...headers } });

describe("download", () => {
  it("streams a version with its type, digest and a UTF-8 file name", async () => {
    const response = await get(`${base}/docs%2Fa%20b.txt/versions/latest/content`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("0123456789");
    expect(response.headers.get("content-type")).toBe("text/plain");
    expect(response.headers.get("content-disposition")).toBe(
      `attachment; filename="a b.txt"; filename*=UTF-8''a%20b.txt`,
    );
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("etag")).toMatch(/^"[0-9a-f]{64}"$/);
  });

  it("serves byte ranges, and 416 past the end", async () => {
    const part = await get(`${base}/docs%2Fa%20b.txt/versions/1/content`, { range: "bytes=2-4" });
    expect(part.status).toBe(206);
    expect(await part.text()).toBe("234");
    expect(part.headers.get("content-range")).toBe("bytes 2-4/10");
    const suffix = await get(`${base}/docs%2Fa%20b.txt/versions/1/content`, { range: "bytes=-3" });
    expect(await suffix.text()).toBe("789");
    const past = await get(`${base}/docs%2Fa%20b.txt/versions/1/content`, { range: "bytes=10-" });
    expect(past.status).toBe(416);
    expect(past.headers.get("content-range")).toBe("bytes */10");
  });

  it("never serves HTML as a page of this origin: sandboxed, no script", async () => {
    const response = await get(`${base}/page.html/versions/1/content?disposition=inline`);
    expect(response.headers.get("content-security-policy")).toMatch(/^sandbox; default-src 'none'/);
    expect(response.headers.get("content-disposition")).toMatch(/^inline; /);
    await response.body?.cancel();
  });

  it("shows one version's metadata; listings still carry none", async () => {
    const one = await (await get(`${base}/docs%2Fa%20b.txt/versions/latest`)).json();
    expect(one).toMatchObject({ version: 1, size: 10, metadata: { step: 3 } });
    const list = await (await get(`${base}/docs%2Fa%20b.txt/versions`)).json();
    expect(JSON.stringify(list)).not.toContain("step");
  });
});

describe("signed links", () => {
  const linkOf = async () => {
    const response = await fetch(`${api.url}${base}/docs%2Fa%20b.txt/versions/latest/link`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ expiresInSeconds: 60 }),
    });
    expect(response.status).toBe(200);
    return (await response.json()) as { path: string; expiresAt: number };
  };

  it("download without the token while valid", async () => {
    const { path } = await linkOf();
    const response = await fetch(`${api.url}${path}`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("0123456789");
  });

  it("are refused once altered or expired", async () => {
    const { path } = await linkOf();
    const at = path.length - 3;
    const altered = `${path.slice(0, at)}${path[at] === "A" ? "B" : "A"}${path.slice(at + 1)}`;
    const refused = await fetch(`${api.url}${altered}`);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { detail: object } }).error.detail).toEqual({
      reason: "bad_link",
    });
    const expired = signLink(SECRET, { scope, name: "docs/a b.txt", version: 1, expiresAt: 1 });
    const late = await fetch(`${api.url}/links/${expired}`);
    expect(late.status).toBe(403);
    expect(await late.text()).toContain("link_expired");
    const foreign = signLink("another-secret-0123456789abcdef-01234", {
      scope,
      name: "docs/a b.txt",
      version: 1,
      expiresAt: Date.now() + 60_000,
    });
    expect((await fetch(`${api.url}/links/${foreign}`)).status).toBe(403);
  });
});

describe("upload and delete", () => {
  const put = (
    name: string,
    body: Uint8Array | ReadableStream<Uint8Array>,
    headers: Record<string, string> = {},
  ) =>
    fetch(`${api.url}${base}/${name}`, {
      method: "PUT",
      headers: { ...auth, "content-type": "text/csv", ...headers },
      body,
      duplex: "half",
    } as RequestInit);

  it("publishes a streamed body as a new version with its type and metadata", async () => {
    const chunks = ["a,b\n", "1,2\n"].map((chunk) => new TextEncoder().encode(chunk));
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(next);
      },
    });
    const metadata = encodeURIComponent(JSON.stringify({ by: "café" }));
    const response = await put("t.csv", body, { "x-artifact-metadata": metadata });
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ version: 1, size: 8, mimeType: "text/csv" });
    const stored = await service.get(scope, "t.csv");
    expect(new TextDecoder().decode(stored.data)).toBe("a,b\n1,2\n");
    expect(stored.metadata).toEqual({ by: "café" });
  });

  it("refuses a body over the bound (declared or streamed) and publishes nothing", async () => {
    const big = new Uint8Array(4097);
    expect((await put("big.bin", big)).status).toBe(413);
    let sent = 0;
    const undeclared = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 8192) controller.close();
        else {
          sent += 1024;
          controller.enqueue(new Uint8Array(1024));
        }
      },
    });
    const streamed = await put("big.bin", undeclared);
    expect(streamed.status).toBe(413);
    expect((await service.listNames(scope)).items).not.toContain("big.bin");
  });

  it("deletes a version, the latest, or every version of a name", async () => {
    for (let i = 0; i < 3; i++) await service.put(scope, "d.txt", text);
    const del = (path: string) =>
      fetch(`${api.url}${base}/${path}`, { method: "DELETE", headers: auth });
    expect((await del("d.txt/versions/1")).status).toBe(200);
    expect((await del("d.txt/versions/latest")).status).toBe(200);
    expect((await service.listVersions(scope, "d.txt")).items.map((v) => v.version)).toEqual([2]);
    expect((await del("d.txt")).status).toBe(200);
    expect((await service.listNames(scope)).items).not.toContain("d.txt");
  });
});

describe("a store that fails in the middle of a download", () => {
  it("cuts the body short, tells the operator, and keeps serving", async () => {
    const memory = new MemoryArtifactService();
    const big = new Uint8Array(3 * 1024 * 1024).fill(9);
    await memory.put(scope, "big.bin", big);
    // The real store, whose downloads fail at their second block read as a lost disk would.
    const failing: ArtifactService & ArtifactTransfer = {
      ...contractOnly(memory),
      openUpload: (...args) => memory.openUpload(...args),
      openDownload: async (...args) => {
        const source = await memory.openDownload(...args);
        let reads = 0;
        return {
          meta: source.meta,
          offset: source.offset,
          length: source.length,
          read: async () => {
            reads += 1;
            if (reads === 2) throw unavailable("disk at /srv/secret is gone");
            return source.read();
          },
          cancel: () => source.cancel(),
        };
      },
    };
    const errors: Error[] = [];
    const server = await startDeveloperApi({
      service: failing,
      token: TOKEN,
      onServerError: (error) => errors.push(error),
    });
    try {
      const response = await fetch(`${server.url}${base}/big.bin/versions/1/content`, {
        headers: auth,
      });
      expect(response.status).toBe(200);
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      const received: Uint8Array[] = [];
      const cut = await (async () => {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return false;
          received.push(value);
        }
      })().catch(() => true);
      expect(cut).toBe(true);
      expect(Buffer.concat(received).toString("latin1")).not.toContain("/srv/secret");
      expect(errors.map((error) => error.message)).toEqual(["disk at /srv/secret is gone"]);
      const after = await fetch(`${server.url}${base}`, { headers: auth });
      expect(after.status).toBe(200);
      expect(await after.json()).toMatchObject({ items: ["big.bin"] });
    } finally {
      await server.close();
      await memory.close();
    }
  });
});

describe("a latest version deleted between its head and its download", () => {
  it("serves the version that is latest now, never a 404 while the name has versions", async () => {
    const memory = new MemoryArtifactService();
    await memory.put(scope, "r.txt", new TextEncoder().encode("first"));
    await memory.put(scope, "r.txt", new TextEncoder().encode("second"));
    // Another caller deletes version 2 right after the head of "latest" answered with it.
    let raced = false;
    const racing: ArtifactService & ArtifactTransfer = {
      ...contractOnly(memory),
      head: async (...args) => {
        const meta = await memory.head(...args);
        if (!raced && meta.version === 2) {
          raced = true;
          await memory.delete(scope, "r.txt", 2);
        }
        return meta;
      },
      openUpload: (...args) => memory.openUpload(...args),
      openDownload: (...args) => memory.openDownload(...args),
    };
    const server = await startDeveloperApi({ service: racing, token: TOKEN });
    try {
      const response = await fetch(`${server.url}${base}/r.txt/versions/latest/content`, {
        headers: auth,
      });
      expect(raced).toBe(true);
      expect(response.status).toBe(200);
      expect(await response.text()).toBe("first");
    } finally {
      await server.close();
      await memory.close();
    }
  });
});
