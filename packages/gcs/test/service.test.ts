import { ArtifactError, type Scope } from "@artifact-kit/core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { GcsArtifactService } from "../src/index.js";
import { endpoint, freshBucket, newStorage } from "./support/emulator.js";
import { type FaultProxy, startFaultProxy } from "./support/fault-proxy.js";

const scope: Scope = { kind: "session", app: "app", user: "u", session: "s" };
const bytes = (text: string) => new TextEncoder().encode(text);

async function rejection(promise: Promise<unknown>): Promise<ArtifactError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ArtifactError);
  return error as ArtifactError;
}

describe("GcsArtifactService on the emulator", () => {
  // Requests are counted where they reach the emulator: in a proxy that injects no faults.
  let proxy: FaultProxy;
  let storage: ReturnType<typeof newStorage>;
  let bucket: Awaited<ReturnType<typeof freshBucket>>;
  let service: GcsArtifactService;

  beforeAll(async () => {
    proxy = await startFaultProxy(endpoint());
  });
  afterAll(() => proxy.close());

  beforeEach(async () => {
    storage = newStorage(proxy.endpoint);
    bucket = await freshBucket(storage);
    service = new GcsArtifactService({ bucket, prefix: "artifacts" });
  });

  it("round-trips data, mime type and metadata", async () => {
    const meta = await service.put(scope, "reports/q1.txt", bytes("hello"), {
      mimeType: "text/plain",
      metadata: { tags: ["a"], nested: { n: 1 } },
    });
    expect(meta).toMatchObject({ version: 1, size: 5, mimeType: "text/plain" });
    const artifact = await service.get(scope, "reports/q1.txt");
    expect(new TextDecoder().decode(artifact.data)).toBe("hello");
    expect(artifact.metadata).toEqual({ tags: ["a"], nested: { n: 1 } });
    expect(await service.head(scope, "reports/q1.txt", { version: 1 })).toEqual(meta);
  });

  it("sends at most two requests per put once the name's high-water mark is known", async () => {
    await service.put(scope, "steady", bytes("0"));
    proxy.seen.length = 0;
    for (let i = 1; i <= 5; i++) await service.put(scope, "steady", bytes(String(i)));
    expect(proxy.seen.length).toBeLessThanOrEqual(2 * 5);
    expect((await service.listVersions(scope, "steady")).items.map((m) => m.version)).toEqual([
      1, 2, 3, 4, 5, 6,
    ]);
  });

  it("lists a page of names with one listing request, in UTF-8 byte order", async () => {
    const names = ["b", "a/b", "a", "\u{1F600}", "\uFFFD", "é", "a-b"];
    for (const name of names) await service.put(scope, name, bytes(name));
    proxy.seen.length = 0;
    const first = await service.listNames(scope, { limit: 3 });
    expect(proxy.seen.length).toBe(1);
    expect(first.items).toEqual(["a", "a-b", "a/b"]);
    const rest = await service.listNames(scope, { cursor: first.nextCursor as string });
    expect(rest.items).toEqual(["b", "é", "\uFFFD", "\u{1F600}"]);
    expect(rest.nextCursor).toBeUndefined();
  });

  it("orders long names that share a truncated key by their full name", async () => {
    const stem = "x".repeat(400);
    const names = [`${stem}b`, `${stem}a`, `${stem}\u{1F600}`, `${stem}`, "y"];
    for (const name of names) await service.put(scope, name, bytes("1"));
    const pages: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await service.listNames(scope, { limit: 2, ...(cursor ? { cursor } : {}) });
      pages.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor);
    expect(pages).toEqual([stem, `${stem}a`, `${stem}b`, `${stem}\u{1F600}`, "y"]);
    expect((await service.get(scope, `${stem}a`)).name).toBe(`${stem}a`);
  });

  it("never reuses a deleted version, also from another service instance", async () => {
    await service.put(scope, "n", bytes("1"));
    await service.put(scope, "n", bytes("2"));
    await service.delete(scope, "n", "all");
    expect((await service.listNames(scope)).items).toEqual([]);
    const other = new GcsArtifactService({
      bucket: newStorage().bucket(bucket.name),
      prefix: "artifacts",
    });
    expect((await other.put(scope, "n", bytes("3"))).version).toBe(3);
    expect((await rejection(service.get(scope, "n", { version: 2 }))).code).toBe("not_found");
  });

  it("declares native transfer and serves byte ranges from the stored object", async () => {
    expect(service.capabilities().transfer).toEqual({
      streamingUpload: true,
      streamingDownload: true,
      byteRanges: true,
    });
    await service.put(scope, "r", bytes("0123456789"));
    const readAll = async (options: Parameters<GcsArtifactService["openDownload"]>[2]) => {
      const source = await service.openDownload(scope, "r", options);
      let text = "";
      for (let piece = await source.read(); piece; piece = await source.read()) {
        text += new TextDecoder().decode(piece);
      }
      return text;
    };
    expect(await readAll({ range: { offset: 3, length: 4 } })).toBe("3456");
    expect(await readAll({ version: 1, range: { offset: 8, length: 10 } })).toBe("89");
    expect(
      (await rejection(service.openDownload(scope, "r", { range: { offset: 11, length: 1 } })))
        .code,
    ).toBe("invalid_argument");
  });

  it("keeps at most maxConcurrency requests in flight", async () => {
    const narrow = new GcsArtifactService({
      bucket: newStorage(proxy.endpoint).bucket(bucket.name),
      maxConcurrency: 2,
    });
    proxy.inject(() => true, { delayMs: 20 }, Number.POSITIVE_INFINITY);
    proxy.maxInFlight = 0;
    try {
      const names = ["a", "b", "c", "d", "e", "f"];
      await Promise.all(names.map((name) => narrow.put(scope, name, bytes(name))));
      expect((await narrow.listNames(scope)).items).toEqual(names);
    } finally {
      proxy.clearFaults();
    }
    expect(proxy.maxInFlight).toBe(2);
  });

  it("repair removes orphaned staging objects past their age, and nothing else", async () => {
    await service.put(scope, "kept", bytes("kept"));
    // What an upload that died between staging and publication leaves.
    const orphan = bucket.file("artifacts/u/dead-upload/data");
    await orphan.save(Buffer.from("staged"), { resumable: false });
    expect(await service.repair()).toEqual({
      abortedUploads: 0,
      removedStaging: 0,
      removedChunks: 0,
    });
    // Wait on the clock passing the object's own time, not on a fixed sleep.
    const [{ updated }] = await orphan.getMetadata();
    while (Date.now() <= Date.parse(String(updated)) + 1) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(await service.repair({ olderThanMs: 1 })).toEqual({
      abortedUploads: 0,
      removedStaging: 1,
      removedChunks: 0,
    });
    expect((await orphan.exists())[0]).toBe(false);
    expect(new TextDecoder().decode((await service.get(scope, "kept")).data)).toBe("kept");
    expect((await rejection(service.repair({ olderThanMs: 0 }))).code).toBe("invalid_argument");
    await service.close();
    expect((await rejection(service.repair())).code).toBe("closed");
  });

  it("rejects unknown and malformed configuration", () => {
    const bucket = storage.bucket("b");
    expect(() => new GcsArtifactService({ bucket, colour: "red" } as never)).toThrow(
      expect.objectContaining({ code: "invalid_argument", detail: { field: "gcsOptions.colour" } }),
    );
    expect(() => new GcsArtifactService({ bucket, maxConcurrency: 0 })).toThrow(
      expect.objectContaining({ code: "invalid_argument" }),
    );
    expect(() => new GcsArtifactService({ bucket: {} as never })).toThrow(
      expect.objectContaining({ code: "invalid_argument" }),
    );
  });
});
