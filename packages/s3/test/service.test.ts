import { type ArtifactError, allNames, type Scope } from "@artifact-kit/core";
import { failure } from "@artifact-kit/fault-trials";
import {
  CreateMultipartUploadCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
} from "@aws-sdk/client-s3";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { S3ArtifactService } from "../src/index.js";
import { FaultProxy, type SeenRequest, SLOW_DOWN } from "./support/fault-proxy.js";
import { endpoint, freshBucket, newClient } from "./support/server.js";

const scope: Scope = { kind: "session", app: "app", user: "u", session: "s" };
const bytes = (text: string) => new TextEncoder().encode(text);
const MiB = 1024 * 1024;
const raw = newClient();

describe("options and open's check", () => {
  let proxy: FaultProxy;
  let bucket: string;
  beforeAll(async () => {
    proxy = await FaultProxy.start(endpoint());
    bucket = await freshBucket();
  });
  afterAll(() => proxy.close());
  afterEach(() => proxy.clearFaults());

  it("rejects unknown options, a client that is not one, and bounds S3 cannot honour", () => {
    const client = newClient();
    const bad: [string, () => unknown][] = [
      ["s3Options", () => new S3ArtifactService({ client, bucket, region: "x" } as never)],
      ["client", () => new S3ArtifactService({ client: {} as never, bucket })],
      ["bucket", () => new S3ArtifactService({ client, bucket: "" })],
      ["maxPageLimit", () => new S3ArtifactService({ client, bucket, maxPageLimit: 1001 })],
      ["partBytes", () => new S3ArtifactService({ client, bucket, partBytes: MiB })],
      [
        "multipartCompletion",
        () => new S3ArtifactService({ client, bucket, multipartCompletion: "maybe" as never }),
      ],
    ];
    for (const [field, make] of bad) {
      expect(make).toThrow(expect.objectContaining({ code: "invalid_argument" }));
      try {
        make();
      } catch (error) {
        expect((error as ArtifactError).detail.field).toMatch(new RegExp(`^${field}`));
      }
    }
    const bounds = new S3ArtifactService({ client, bucket, partBytes: 6 * MiB }).capabilities()
      .quotas.bounds;
    expect(bounds).toMatchObject({
      partBytes: 6 * MiB,
      maxConcurrency: 16,
      maxContentionWaitMs: 60_000,
    });
  });

  it("open accepts a server that refuses a second create-only write, and leaves nothing", async () => {
    const service = await S3ArtifactService.open({ client: newClient(), bucket, prefix: "ok" });
    expect((await service.put(scope, "n", bytes("x"))).version).toBe(1);
    const left = await raw.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: "ok/p/" }));
    expect(left.KeyCount ?? 0).toBe(0);
    const uploads = await raw.send(new ListMultipartUploadsCommand({ Bucket: bucket }));
    expect(uploads.Uploads ?? []).toEqual([]);
  });

  it("open refuses a server that ignores If-None-Match on PutObject", async () => {
    proxy.inject((r) => r.method === "PUT", { withoutHeader: "if-none-match" }, 10);
    const refused = await failure(
      S3ArtifactService.open({ client: newClient(proxy.endpoint), bucket }),
    );
    expect(refused.code).toBe("invalid_argument");
    expect(refused.detail.field).toBe("client");
  });

  it("open refuses one that ignores it on completion, unless the weaker mode is chosen", async () => {
    const completion = (r: SeenRequest) => r.method === "POST" && r.url.includes("uploadId=");
    proxy.inject(completion, { withoutHeader: "if-none-match" }, 10);
    const client = newClient(proxy.endpoint);
    const refused = await failure(S3ArtifactService.open({ client, bucket }));
    expect(refused.detail.field).toBe("multipartCompletion");
    expect(refused.message).toContain("unconditional");
    const weaker = await S3ArtifactService.open({
      client,
      bucket,
      prefix: "weak",
      multipartCompletion: "unconditional",
    });
    const upload = await weaker.openUpload(scope, "streamed");
    await upload.write(new Uint8Array(6 * MiB).fill(7));
    expect((await upload.finish()).size).toBe(6 * MiB);
  });
});

describe("names, requests and idempotency keys", () => {
  let proxy: FaultProxy;
  let bucket: string;
  let service: S3ArtifactService;
  beforeAll(async () => {
    proxy = await FaultProxy.start(endpoint());
  });
  afterAll(() => proxy.close());
  beforeEach(async () => {
    bucket = await freshBucket();
    service = new S3ArtifactService({ client: newClient(proxy.endpoint), bucket, prefix: "t" });
  });
  afterEach(() => proxy.clearFaults());

  it("hostile names round-trip and list in UTF-8 byte order; bad ones write nothing", async () => {
    const hostile = [
      "a",
      "a/b",
      "a b?c#d%20&e+f",
      "..a/b..",
      "\u{1F600}/\uFFFD",
      "é",
      "~",
      "x".repeat(1024),
      `${"é".repeat(200)}-1`,
      `${"é".repeat(200)}-2`,
      "<Key>&amp;</Key>",
    ];
    for (const name of hostile) await service.put(scope, name, bytes(name.slice(0, 10)));
    for (const name of hostile) {
      expect((await service.get(scope, name)).name).toBe(name);
    }
    // Pages of 3 names: cursors land inside the group of long names that share a key prefix.
    const paged = new S3ArtifactService({
      client: newClient(),
      bucket,
      prefix: "t",
      maxPageLimit: 3,
    });
    const listed = await allNames(paged, scope);
    const byUtf8 = [...hostile].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    expect(listed).toEqual(byUtf8);
    for (const name of ["", "a//b", "a/../b", ".", "x".repeat(1025), "a\u0000b"]) {
      expect((await failure(service.put(scope, name, bytes("x")))).code).toBe("invalid_argument");
    }
    expect(await allNames(service, scope)).toEqual(byUtf8);
  });

  it("a put costs 2 requests in steady state (allocation and publication)", async () => {
    await service.put(scope, "n", bytes("first"));
    const before = proxy.seen.length;
    for (let i = 0; i < 5; i++) await service.put(scope, "n", bytes(`next ${i}`));
    expect((proxy.seen.length - before) / 5).toBe(2);
    const keyed = proxy.seen.length;
    await service.put(scope, "n", bytes("keyed"), { idempotencyKey: "k" });
    // Binding lookup, allocation, binding, publication.
    expect(proxy.seen.length - keyed).toBe(4);
  });

  it("a page of 100 versions is 3 requests once its record chunk is written, and as before", async () => {
    for (let i = 1; i <= 100; i++) await service.put(scope, "n", bytes(`${i}`));
    const page = async () => {
      const before = proxy.seen.length;
      const { items } = await service.listVersions(scope, "n");
      return { items, requests: proxy.seen.length - before };
    };
    const first = await page();
    // The first read lists, reads every trailer, and writes the range's chunk.
    expect(first.requests).toBeGreaterThan(100);
    const again = await page();
    // The versions' listing, the chunks' listing, and the one chunk of versions 1 to 100.
    expect(again.requests).toBe(3);
    expect(again.items).toEqual(first.items);
    expect(again.items.map((meta) => meta.version)).toEqual(
      Array.from({ length: 100 }, (_, i) => i + 1),
    );
    await service.delete(scope, "n", 50);
    const { items, requests } = await page();
    expect(items).toEqual(first.items.filter((meta) => meta.version !== 50));
    expect(requests).toBe(3);
    expect((await service.repair()).removedChunks).toBe(1);
  });

  it("latest is found near the high-water mark: above a stale hint, below deleted top versions", async () => {
    const other = new S3ArtifactService({ client: newClient(), bucket, prefix: "t" });
    for (let i = 1; i <= 3; i++) await service.put(scope, "n", bytes(`${i}`));
    for (let i = 4; i <= 20; i++) await other.put(scope, "n", bytes(`${i}`));
    // This instance's mark is 3; the name went on to 20 on another.
    expect((await service.head(scope, "n")).version).toBe(20);
    for (let v = 20; v > 5; v--) await other.delete(scope, "n", v);
    expect(new TextDecoder().decode((await service.get(scope, "n")).data)).toBe("5");
    const before = proxy.seen.length;
    await service.get(scope, "n");
    // One listing from below the mark to the end of the name, and the read.
    expect(proxy.seen.length - before).toBe(2);
    await service.delete(scope, "n", "all");
    expect((await failure(service.get(scope, "n"))).code).toBe("not_found");
  });

  it("a retried key returns the bound version; another payload or a deleted version is refused", async () => {
    const first = await service.put(scope, "n", bytes("one"), {
      idempotencyKey: "op",
      metadata: { a: 1 },
    });
    expect(first.idempotencyKey).toBe("op");
    const again = await service.put(scope, "n", bytes("one"), {
      idempotencyKey: "op",
      metadata: { a: 1 },
    });
    expect(again).toEqual(first);
    const other = await failure(service.put(scope, "n", bytes("two"), { idempotencyKey: "op" }));
    expect(other.code).toBe("invalid_argument");
    expect(other.detail.field).toBe("idempotencyKey");
    // The same key under another name is another key.
    expect((await service.put(scope, "m", bytes("two"), { idempotencyKey: "op" })).version).toBe(1);
    await service.delete(scope, "n", first.version);
    const gone = await failure(
      service.put(scope, "n", bytes("one"), { idempotencyKey: "op", metadata: { a: 1 } }),
    );
    expect(gone.code).toBe("not_found");
    expect(gone.detail.version).toBe(first.version);
    expect((await service.listVersions(scope, "n")).items).toEqual([]);
  });

  it("concurrent puts with one key, from two instances, publish one version", async () => {
    const other = new S3ArtifactService({ client: newClient(), bucket, prefix: "t" });
    const puts = Array.from({ length: 8 }, (_, i) =>
      (i % 2 ? other : service).put(scope, "n", bytes("same"), { idempotencyKey: "once" }),
    );
    const metas = await Promise.all(puts);
    expect(new Set(metas.map((meta) => meta.version)).size).toBe(1);
    expect((await other.listVersions(scope, "n")).items).toHaveLength(1);
  });

  it("a keyed put that died after binding is finished by its retry, at the bound version", async () => {
    const publication = (r: SeenRequest) => r.method === "PUT" && r.url.includes("/n/");
    proxy.inject(publication, SLOW_DOWN, Number.POSITIVE_INFINITY);
    const died = await failure(service.put(scope, "n", bytes("data"), { idempotencyKey: "r" }));
    expect(died.code).toBe("unavailable");
    proxy.clearFaults();
    const observer = new S3ArtifactService({ client: newClient(), bucket, prefix: "t" });
    const retried = await observer.put(scope, "n", bytes("data"), { idempotencyKey: "r" });
    expect(retried.version).toBe(1);
    expect((await observer.listVersions(scope, "n")).items.map((m) => m.version)).toEqual([1]);
    // An unkeyed put after it continues above.
    expect((await observer.put(scope, "n", bytes("next"))).version).toBe(2);
  });

  it("concurrent deletes of one version: exactly one succeeds", async () => {
    await service.put(scope, "n", bytes("x"));
    const other = new S3ArtifactService({ client: newClient(), bucket, prefix: "t" });
    const outcomes = await Promise.allSettled([
      service.delete(scope, "n", 1),
      other.delete(scope, "n", 1),
      other.delete(scope, "n", "latest"),
    ]);
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
    expect((await service.put(scope, "n", bytes("y"))).version).toBe(2);
  });
});

describe("repair", () => {
  it("aborts abandoned multipart uploads and removes orphaned staging, nothing else", async () => {
    const bucket = await freshBucket();
    const service = new S3ArtifactService({ client: newClient(), bucket, prefix: "r" });
    await service.put(scope, "kept", bytes("kept"));
    // An owner that went away mid-upload: one part staged, never finished nor aborted.
    const upload = await service.openUpload(scope, "lost");
    await upload.write(new Uint8Array(8 * MiB));
    // A staging object left by an upload that died between staging and publication.
    await raw.send(new PutObjectCommand({ Bucket: bucket, Key: "r/u/orphan", Body: bytes("x") }));
    // Someone else's upload in the bucket, outside the prefix: never touched.
    await raw.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: "other/file" }));
    // moto reports every multipart upload as initiated in 2010, so the upload is already old
    // enough for the default 24 h; the staging object's real age spares it until it is 1 s old.
    expect(await service.repair()).toEqual({
      abortedUploads: 1,
      removedStaging: 0,
      removedChunks: 0,
    });
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await service.repair({ olderThanMs: 1_000 })).toEqual({
      abortedUploads: 0,
      removedStaging: 1,
      removedChunks: 0,
    });
    const uploads = await raw.send(new ListMultipartUploadsCommand({ Bucket: bucket }));
    expect((uploads.Uploads ?? []).map((u) => u.Key)).toEqual(["other/file"]);
    expect(new TextDecoder().decode((await service.get(scope, "kept")).data)).toBe("kept");
    expect((await failure(service.repair({ olderThanMs: 0 }))).code).toBe("invalid_argument");
    await service.close();
    expect((await failure(service.repair())).code).toBe("closed");
  });
});
