import { type Scope, sha256Hex } from "@artifact-kit/core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { S3ArtifactService } from "../src/index.js";
import { failure } from "./support/failure.js";
import { FaultProxy, type SeenRequest, SLOW_DOWN } from "./support/fault-proxy.js";
import { endpoint, freshBucket, newClient } from "./support/server.js";

const scope: Scope = { kind: "user", app: "app", user: "u" };
const bytes = (text: string) => new TextEncoder().encode(text);
const MiB = 1024 * 1024;

// Requests by what they do in the adapter's layout (see src/layout.ts).
const allocation = (r: SeenRequest) => r.method === "PUT" && r.url.includes("/a/");
const publish = (r: SeenRequest) =>
  r.method === "PUT" && r.url.includes("/n/") && !r.url.includes("uploadId=");
const completion = (r: SeenRequest) =>
  r.method === "POST" && r.url.includes("/n/") && r.url.includes("uploadId=");
const listing = (r: SeenRequest) => r.method === "GET" && r.url.includes("list-type=2");
const deletionMarker = (r: SeenRequest) => r.method === "PUT" && r.url.includes("/d/");

describe("faults between the client and the server", () => {
  let proxy: FaultProxy;
  let service: S3ArtifactService;
  /** An observer that talks to the server directly, past the proxy. */
  let observer: S3ArtifactService;

  beforeAll(async () => {
    proxy = await FaultProxy.start(endpoint());
  });
  afterAll(() => proxy.close());

  beforeEach(async () => {
    const bucket = await freshBucket();
    service = new S3ArtifactService({
      client: newClient(proxy.endpoint),
      bucket,
      partBytes: 5 * MiB,
    });
    observer = new S3ArtifactService({ client: newClient(), bucket });
  });
  afterEach(() => proxy.clearFaults());

  const versions = async (name: string) =>
    (await observer.listVersions(scope, name)).items.map((meta) => meta.version);

  it.each([
    ["allocation", allocation],
    ["publication", publish],
  ])("a lost %s response is retried into one version, not two", async (_, step) => {
    await service.put(scope, "n", bytes("first"));
    proxy.inject(step, "drop-response");
    const meta = await service.put(scope, "n", bytes("second"));
    expect(proxy.seen.filter(step).length).toBeGreaterThanOrEqual(3); // 1st put, lost, retry
    expect(meta.version).toBe(2);
    expect(await versions("n")).toEqual([1, 2]);
    expect(new TextDecoder().decode((await observer.get(scope, "n")).data)).toBe("second");
  });

  it("a lost completion of a streamed upload publishes one version, whole", async () => {
    proxy.inject(completion, "drop-response");
    const upload = await service.openUpload(scope, "big");
    const data = new Uint8Array(6 * MiB).map((_, i) => i % 251);
    await upload.write(data);
    const meta = await upload.finish();
    expect(proxy.seen.filter(completion).length).toBeGreaterThanOrEqual(2); // lost, retry
    expect(await versions("big")).toEqual([meta.version]);
    // Compared by digest: a deep equality of 6 MiB element by element takes minutes.
    expect((await observer.get(scope, "big")).sha256).toBe(sha256Hex(data));
  });

  it("503 SlowDown is retried; a server that keeps answering it is unavailable, with its cause", async () => {
    proxy.inject(publish, SLOW_DOWN);
    expect((await service.put(scope, "n", bytes("x"))).version).toBe(1);
    proxy.inject(publish, SLOW_DOWN, Number.POSITIVE_INFINITY);
    const refused = await failure(service.put(scope, "n", bytes("y")));
    expect(refused.code).toBe("unavailable");
    expect(refused.cause).toBeDefined();
    // Never half-published: the allocation landed, the version did not.
    expect(await versions("n")).toEqual([1]);
    proxy.clearFaults();
    proxy.inject(listing, SLOW_DOWN, Number.POSITIVE_INFINITY);
    // A failed listing is an error, never "no versions".
    expect((await failure(service.get(scope, "n"))).code).toBe("unavailable");
    expect((await failure(service.listNames(scope))).code).toBe("unavailable");
  });

  it("a delay past the deadline is a timeout and publishes nothing", async () => {
    await service.put(scope, "n", bytes("1"));
    proxy.inject(allocation, { delayMs: 1_500 });
    const late = await failure(service.put(scope, "n", bytes("late"), { timeoutMs: 200 }));
    expect(late.code).toBe("timeout");
    expect(await versions("n")).toEqual([1]);
    const controller = new AbortController();
    proxy.inject(listing, { delayMs: 1_500 });
    const aborted = service.listNames(scope, { signal: controller.signal });
    controller.abort();
    expect((await failure(aborted)).code).toBe("aborted");
    // The abandoned allocation may land and burn a version; the next put still succeeds above it.
    const next = await service.put(scope, "n", bytes("2"));
    expect(next.version).toBeGreaterThan(1);
    expect(await versions("n")).toEqual([1, next.version]);
  });

  it("a lost response to a keyed put's retry still yields one version for the key", async () => {
    proxy.inject(publish, "drop-response");
    const first = await service.put(scope, "k", bytes("payload"), { idempotencyKey: "op-1" });
    const again = await service.put(scope, "k", bytes("payload"), { idempotencyKey: "op-1" });
    expect(again).toEqual(first);
    expect(await versions("k")).toEqual([first.version]);
  });

  // Found by the seeded fault trials and the kit's fault law: the SDK's retry of a marker whose reply was lost met
  // 412, the delete took the marker for another delete's, and "latest" went on to the next.
  it("a lost reply to a delete's marker deletes one version, not two", async () => {
    for (const text of ["1", "2", "3"]) await service.put(scope, "n", bytes(text));
    proxy.inject(deletionMarker, "drop-response");
    await service.delete(scope, "n", "latest");
    expect(proxy.seen.filter(deletionMarker).length).toBeGreaterThanOrEqual(2); // lost, retry
    expect(await versions("n")).toEqual([1, 2]);
    proxy.inject(deletionMarker, "drop-response");
    // A numbered delete whose marker reply was lost succeeds, rather than not_found.
    await service.delete(scope, "n", 1);
    expect(await versions("n")).toEqual([2]);
  });
});
