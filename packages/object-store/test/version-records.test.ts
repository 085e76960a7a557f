import { type ArtifactService, Deadline, type Scope } from "@artifact-kit/core";
import { nameKey } from "@artifact-kit/core/adapter";
import { beforeEach, describe, expect, it } from "vitest";
import { ObjectLayout, ObjectStoreBackend, type ObjectStoreDialect } from "../src/index.js";
import { MemoryBucket } from "./support/memory-bucket.js";
import { DIALECTS, openService } from "./support/subjects.js";

// Record chunks ("chunks" version records, the s3 dialect): a page of versions reads a few
// chunks instead of one manifest per version, and is never wrong because of one.
const scope: Scope = { kind: "app", app: "chunks" };
const CHUNKED = DIALECTS.trailer.dialect;
const { versionRecords: _, ...unchunked } = CHUNKED;
const OLD: ObjectStoreDialect = unchunked;
const layout = new ObjectLayout("p/", CHUNKED.bindings);
const key = nameKey("log").key;
const bytes = (text: string) => new TextEncoder().encode(text);
const HOUR = 60 * 60 * 1000;

let bucket: MemoryBucket;

beforeEach(() => {
  bucket = new MemoryBucket("body", false, false);
  bucket.maxListKeys = 1_000; // S3's: a page of 100 is one listing request
});

function open(dialect: ObjectStoreDialect = CHUNKED, settleMs?: number): ArtifactService {
  return openService(bucket, dialect, {}, "p/", settleMs);
}

async function putMany(service: ArtifactService, count: number, name = "log") {
  for (let i = 0; i < count; i += 1) await service.put(scope, name, bytes(`v${i}`));
}

/** The versions of every page, and the gets (manifest and chunk reads) each page sent. */
async function pages(service: ArtifactService, limit = 100) {
  const versions: number[] = [];
  const gets: number[] = [];
  let cursor: number | undefined;
  do {
    const before = bucket.requests.get;
    const page = await service.listVersions(scope, "log", { limit, ...(cursor ? { cursor } : {}) });
    gets.push(bucket.requests.get - before);
    versions.push(...page.items.map((meta) => meta.version));
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return { versions, gets };
}

function chunkKeys(): string[] {
  return [...bucket.objects.keys()].filter((k) => k.startsWith("p/r/")).sort();
}

const range = (first: number, count: number) => Array.from({ length: count }, (_, i) => first + i);

describe("record chunks", () => {
  it("a page of 100 reads one chunk once its range is settled, not 100 manifests", async () => {
    const service = open();
    await putMany(service, 100);
    const first = await pages(service);
    expect(first.versions).toEqual(range(1, 100));
    expect(chunkKeys()).toEqual([layout.recordChunk(scope, key, { first: 1, span: 100 })]);
    const before = bucket.requests.list;
    const again = await pages(service);
    expect(again.versions).toEqual(range(1, 100));
    expect(again.gets).toEqual([1]);
    expect(bucket.requests.list - before).toBe(2); // the versions, and the chunks
  });

  it("the recent end of a name reads chunks of 10, and only its last versions one by one", async () => {
    const service = open();
    await putMany(service, 135);
    await pages(service);
    const again = await pages(service);
    expect(again.versions).toEqual(range(1, 135));
    // Page 1: the chunk of 1-100. Page 2: chunks 101-110 ... 121-130, and 131-135 read.
    expect(again.gets).toEqual([1, 3 + 5]);
  });

  it("every page size and cursor gives the same versions and records as reading manifests", async () => {
    const service = open();
    await putMany(service, 57);
    await service.delete(scope, "log", 13);
    await service.delete(scope, "log", 40);
    const truth = await open(OLD).listVersions(scope, "log", { limit: 1_000 });
    for (const limit of [1, 3, 10, 33, 100]) {
      const listed: unknown[] = [];
      let cursor: number | undefined;
      do {
        const page = await service.listVersions(scope, "log", {
          limit,
          ...(cursor ? { cursor } : {}),
        });
        listed.push(...page.items);
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      expect(listed).toEqual(truth.items);
    }
  });

  it("a bucket written without chunks reads as before, and gains them", async () => {
    await putMany(open(OLD), 30);
    const old = await open(OLD).listVersions(scope, "log");
    expect(chunkKeys()).toEqual([]);
    const service = open();
    expect(await service.listVersions(scope, "log")).toEqual(old);
    expect(chunkKeys()).toHaveLength(3); // 1-10, 11-20, 21-30: the top range is not settled
    expect(await service.listVersions(scope, "log")).toEqual(old);
    // The old reader ignores them, and its writes are listed by the new one.
    await putMany(open(OLD), 1);
    expect((await open(OLD).listVersions(scope, "log")).items).toHaveLength(31);
    expect((await service.listVersions(scope, "log")).items).toHaveLength(31);
  });

  it("a deleted version is left out although its chunk records it", async () => {
    const service = open();
    await putMany(service, 100);
    await pages(service);
    await service.delete(scope, "log", 7);
    await service.delete(scope, "log", "latest");
    const { versions, gets } = await pages(service);
    expect(versions).toEqual(range(1, 99).filter((v) => v !== 7));
    expect(gets).toEqual([1]);
  });

  it("repair removes a chunk that records a deleted version, and the next reader writes it anew", async () => {
    const service = open();
    await putMany(service, 100);
    await service.put(scope, "log", bytes("secret"), { metadata: { note: "private" } });
    await putMany(service, 9);
    await pages(service);
    const chunk = layout.recordChunk(scope, key, { first: 101, span: 10 });
    const text = () => new TextDecoder().decode(bucket.objects.get(chunk)?.body);
    expect(text()).toContain("private");
    expect((await backend().repair()).removedChunks).toBe(0);
    await service.delete(scope, "log", 101);
    expect((await backend().repair()).removedChunks).toBe(1);
    expect(chunkKeys()).toEqual([layout.recordChunk(scope, key, { first: 1, span: 100 })]);
    expect((await pages(service)).versions).toEqual(range(1, 110).filter((v) => v !== 101));
    expect(text()).not.toContain("private");
    expect((await pages(service)).gets).toEqual([1, 1]);
  });

  it("a range with a version deleted before its chunk is written is settled by its marker", async () => {
    const service = open(CHUNKED, HOUR);
    await putMany(service, 12);
    await service.delete(scope, "log", 4);
    await pages(service);
    expect(chunkKeys()).toEqual([layout.recordChunk(scope, key, { first: 1, span: 10 })]);
    expect((await pages(service)).versions).toEqual(range(1, 12).filter((v) => v !== 4));
  });

  it("a put that allocated and has not published holds its range's chunk back until it is old", async () => {
    const service = open(CHUNKED, HOUR);
    await putMany(service, 2);
    bucket.failNextWrite.add(layout.versionObject(scope, key, 3));
    await expect(service.put(scope, "log", bytes("x"), { idempotencyKey: "k" })).rejects.toThrow();
    await putMany(service, 18);
    expect((await pages(service)).versions).toEqual(range(1, 21).filter((v) => v !== 3));
    // 1-10 waits for version 3 (its put may still be running); 11-20 is settled.
    expect(chunkKeys()).toEqual([layout.recordChunk(scope, key, { first: 11, span: 10 })]);
    // Without the wait: the chunk is written, and the put, retried late, still shows.
    await pages(open(CHUNKED, 0));
    expect(chunkKeys()).toContain(layout.recordChunk(scope, key, { first: 1, span: 10 }));
    await service.put(scope, "log", bytes("x"), { idempotencyKey: "k" });
    const { versions, gets } = await pages(service);
    expect(versions).toEqual(range(1, 21));
    expect(gets).toEqual([2 + 1 + 1]); // two chunks, version 3 and version 21 read
  });

  it("garbage at a chunk's key is ignored, and repair removes it so it is written again", async () => {
    const service = open();
    await putMany(service, 100);
    const chunk = layout.recordChunk(scope, key, { first: 1, span: 100 });
    await bucket.createOnly(deadline(), { key: chunk, body: bytes('{"format":"nope"}') });
    const { versions, gets } = await pages(service);
    expect(versions).toEqual(range(1, 100));
    expect(gets).toEqual([101]); // the chunk, then every manifest
    const report = await backend().repair();
    expect(report.removedChunks).toBe(1);
    await pages(service);
    expect((await pages(service)).gets).toEqual([1]);
    expect((await backend().repair()).removedChunks).toBe(0);
  });

  it("a chunk record that disagrees with the listed object is not used", async () => {
    const service = open();
    await putMany(service, 10);
    await pages(service);
    const chunk = layout.recordChunk(scope, key, { first: 1, span: 10 });
    const stored = bucket.objects.get(chunk);
    if (!stored) throw new Error("no chunk");
    // A forged record: another mimeType under a wrong tag. The listing's tag rules it out.
    const text = new TextDecoder()
      .decode(stored.body)
      .replace('"tag":"', '"tag":"x')
      .replace(/application\/octet-stream/, "text/forged");
    bucket.objects.set(chunk, { ...stored, body: bytes(text) });
    const page = await service.listVersions(scope, "log");
    expect(page.items.map((meta) => meta.mimeType)).not.toContain("text/forged");
    expect(page).toEqual(await open(OLD).listVersions(scope, "log"));
  });

  it("a chunk of another name or scope copied to this key is ignored whole", async () => {
    const service = open();
    await putMany(service, 10, "other");
    await service.listVersions(scope, "other");
    await putMany(service, 10);
    const other = bucket.objects.get(
      layout.recordChunk(scope, nameKey("other").key, { first: 1, span: 10 }),
    );
    if (!other) throw new Error("no chunk");
    bucket.objects.set(layout.recordChunk(scope, key, { first: 1, span: 10 }), other);
    expect(await service.listVersions(scope, "log")).toEqual(
      await open(OLD).listVersions(scope, "log"),
    );
    expect((await backend().repair()).removedChunks).toBe(1);
  });

  it("readers racing to write one chunk agree, and one chunk is written", async () => {
    await putMany(open(), 100);
    const [a, b] = await Promise.all([pages(open()), pages(open())]);
    expect(a.versions).toEqual(range(1, 100));
    expect(b.versions).toEqual(a.versions);
    expect(chunkKeys()).toHaveLength(1);
  });

  it("a chunk that cannot be written leaves the page as it was", async () => {
    const service = open();
    await putMany(service, 10);
    bucket.failNextWrite.add(layout.recordChunk(scope, key, { first: 1, span: 10 }));
    expect((await pages(service)).versions).toEqual(range(1, 10));
    expect(chunkKeys()).toEqual([]);
  });

  it("a dialect whose listing carries records writes no chunks", async () => {
    const header = DIALECTS.header;
    const service = openService(header.newBucket(), header.dialect);
    await service.put(scope, "log", bytes("a"));
    await service.listVersions(scope, "log");
    expect(chunkKeys()).toEqual([]);
  });
});

function backend(): ObjectStoreBackend {
  return new ObjectStoreBackend({
    bucket,
    prefix: "p/",
    dialect: CHUNKED,
    maxContentionWaitMs: 60_000,
    legacyListLimit: 1_000,
  });
}

function deadline(): Deadline {
  return Deadline.start({});
}
