import { ArtifactError, compareUtf8, type Scope } from "@artifact-kit/core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { GcsArtifactService } from "../src/index.js";
import { endpoint, freshBucket, newStorage } from "./support/emulator.js";
import { type FaultProxy, type SeenRequest, startFaultProxy } from "./support/fault-proxy.js";

const scope: Scope = { kind: "user", app: "app", user: "u" };
const bytes = (text: string) => new TextEncoder().encode(text);
const liveVersions = async (service: GcsArtifactService, name: string) =>
  (await service.listVersions(scope, name)).items.map((meta) => meta.version);

describe("latest under concurrent deletes, and names exactly as given", () => {
  let bucket: Awaited<ReturnType<typeof freshBucket>>;
  let service: GcsArtifactService;

  beforeEach(async () => {
    bucket = await freshBucket();
    service = new GcsArtifactService({ bucket, prefix: "p/" });
  });

  it('10 concurrent delete("latest") over 10 versions all succeed and leave nothing live', async () => {
    for (let i = 0; i < 10; i++) await service.put(scope, "n", bytes(String(i)));
    const others = Array.from(
      { length: 3 },
      () => new GcsArtifactService({ bucket, prefix: "p/" }),
    );
    const deleters = [service, ...others];
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        (deleters[i % deleters.length] as GcsArtifactService).delete(scope, "n", "latest"),
      ),
    );
    expect(outcomes.filter((outcome) => outcome.status === "rejected")).toEqual([]);
    expect(await liveVersions(service, "n")).toEqual([]);
  });

  it('get("latest") racing delete("latest") always finds a live version while one stays', async () => {
    for (let i = 1; i <= 6; i++) await service.put(scope, "n", bytes(String(i)));
    const reader = new GcsArtifactService({ bucket, prefix: "p/" });
    const deletes = Array.from({ length: 5 }, () => service.delete(scope, "n", "latest"));
    const reads = Array.from({ length: 10 }, () => reader.get(scope, "n"));
    const heads = Array.from({ length: 10 }, () => reader.head(scope, "n"));
    await Promise.all(deletes);
    const found = await Promise.all([...reads, ...heads]);
    for (const meta of found) expect(meta.version).toBeGreaterThanOrEqual(1);
    expect(await liveVersions(service, "n")).toEqual([1]);
  });

  it("lists names that start with U+FEFF exactly as they were put", async () => {
    const names = ["a", "\uFEFFa", "\uFEFF", "\uFEFF\uFEFF"];
    for (const name of names) await service.put(scope, name, bytes(name));
    const listed = (await service.listNames(scope)).items;
    expect(listed).toEqual([...names].sort(compareUtf8));
    expect(listed).toHaveLength(4);
    for (const name of listed) expect((await service.head(scope, name)).name).toBe(name);
  });
});

describe("latest in a constant number of requests", () => {
  let proxy: FaultProxy;
  let bucket: Awaited<ReturnType<typeof freshBucket>>;

  beforeAll(async () => {
    proxy = await startFaultProxy(endpoint());
  });
  afterAll(() => proxy.close());
  beforeEach(async () => {
    bucket = await freshBucket();
  });

  /** Requests one fresh instance (no cached high-water) sends for get and delete of latest. */
  async function requestsForLatest(name: string): Promise<{ get: number; delete: number }> {
    const fresh = new GcsArtifactService({
      bucket: newStorage(proxy.endpoint).bucket(bucket.name),
    });
    proxy.seen.length = 0;
    await fresh.get(scope, name);
    const get = proxy.seen.length;
    proxy.seen.length = 0;
    await fresh.delete(scope, name, "latest");
    return { get, delete: proxy.seen.length };
  }

  it("get and delete of latest cost the same with 2 versions and with 120", async () => {
    const writer = new GcsArtifactService({ bucket });
    for (let i = 0; i < 2; i++) await writer.put(scope, "few", bytes("x"));
    await Promise.all(Array.from({ length: 120 }, () => writer.put(scope, "many", bytes("x"))));
    const few = await requestsForLatest("few");
    const many = await requestsForLatest("many");
    expect(many).toEqual(few);
    // high-water listing, one listing of the top window, and the read or the delete
    expect(few.get).toBeLessThanOrEqual(3);
  });

  it("finds latest below many deleted top versions in a few listings, not one per page", async () => {
    const writer = new GcsArtifactService({ bucket });
    await Promise.all(Array.from({ length: 120 }, () => writer.put(scope, "n", bytes("x"))));
    const top = Array.from({ length: 115 }, (_, i) => i + 6);
    await Promise.all(top.map((version) => writer.delete(scope, "n", version)));
    const reader = new GcsArtifactService({
      bucket: newStorage(proxy.endpoint).bucket(bucket.name),
    });
    proxy.seen.length = 0;
    expect((await reader.head(scope, "n")).version).toBe(5);
    const listings = proxy.seen.filter(
      (r: SeenRequest) => r.method === "GET" && /\/o\?/.test(r.url),
    );
    expect(listings.length).toBeLessThanOrEqual(4);
  });

  it("rounds a fractional timeoutMs up, and refuses a zero one before any request", async () => {
    const service = new GcsArtifactService({
      bucket: newStorage(proxy.endpoint).bucket(bucket.name),
    });
    proxy.seen.length = 0;
    const error = await service.put(scope, "n", bytes("x"), { timeoutMs: 0 }).catch((e) => e);
    expect(error).toBeInstanceOf(ArtifactError);
    expect((error as ArtifactError).code).toBe("invalid_argument");
    expect(proxy.seen).toEqual([]);
    // A timeout computed from a clock is a fraction; the client's timers take whole milliseconds.
    // A minute, not a second: a loaded CI machine may take seconds for one request.
    const put = await service.put(scope, "n", bytes("x"), { timeoutMs: 60_000.5 });
    expect((await service.get(scope, "n", { timeoutMs: 0.5 + 59_999 })).version).toBe(put.version);
  });
});
