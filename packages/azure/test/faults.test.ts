import { type Scope, sha256Hex } from "@artifact-kit/core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { AzureArtifactService } from "../src/index.js";
import { failure } from "./support/failure.js";
import { FaultProxy, SERVER_BUSY, type SeenRequest } from "./support/fault-proxy.js";
import { blobOrigin, containerClient, freshContainer } from "./support/server.js";

const scope: Scope = { kind: "user", app: "app", user: "u" };
const bytes = (text: string) => new TextEncoder().encode(text);
const KiB = 1024;

// Requests by what they do in the protocol's layout (see @artifact-kit/object-store's layout).
const allocation = (r: SeenRequest) => r.method === "PUT" && r.url.includes("/a/");
const publish = (r: SeenRequest) =>
  r.method === "PUT" && r.url.includes("/n/") && !r.url.includes("comp=");
const blockList = (r: SeenRequest) =>
  r.method === "PUT" && r.url.includes("/n/") && r.url.includes("comp=blocklist");
const listing = (r: SeenRequest) => r.method === "GET" && r.url.includes("comp=list");
const deletionMarker = (r: SeenRequest) => r.method === "PUT" && r.url.includes("/d/");

describe("faults between the client and Azurite", () => {
  let proxy: FaultProxy;
  let service: AzureArtifactService;
  /** An observer that talks to the service directly, past the proxy. */
  let observer: AzureArtifactService;

  beforeAll(async () => {
    proxy = await FaultProxy.start(blobOrigin());
  });
  afterAll(() => proxy.close());

  beforeEach(async () => {
    const { containerName } = await freshContainer();
    service = new AzureArtifactService({
      container: containerClient(containerName, proxy.endpoint),
      blockBytes: 128 * KiB,
    });
    observer = new AzureArtifactService({ container: containerClient(containerName) });
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

  it("a lost Put Block List reply of a streamed upload publishes one version, whole", async () => {
    proxy.inject(blockList, "drop-response");
    const upload = await service.openUpload(scope, "big");
    const data = new Uint8Array(300 * KiB + 17).map((_, i) => i % 251);
    await upload.write(data);
    const meta = await upload.finish();
    expect(proxy.seen.filter(blockList).length).toBeGreaterThanOrEqual(2); // lost, retry
    expect(await versions("big")).toEqual([meta.version]);
    expect((await observer.get(scope, "big")).sha256).toBe(sha256Hex(data));
  });

  it("503 ServerBusy is retried; a service that keeps answering it is unavailable, with its cause", async () => {
    proxy.inject(publish, SERVER_BUSY);
    expect((await service.put(scope, "n", bytes("x"))).version).toBe(1);
    proxy.inject(publish, SERVER_BUSY, Number.POSITIVE_INFINITY);
    const refused = await failure(service.put(scope, "n", bytes("y")));
    expect(refused.code).toBe("unavailable");
    expect(refused.cause).toBeDefined();
    // Never half-published: the allocation landed, the version did not.
    expect(await versions("n")).toEqual([1]);
    proxy.clearFaults();
    proxy.inject(listing, SERVER_BUSY, Number.POSITIVE_INFINITY);
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

  it("a lost response to a keyed put's publication still yields one version for the key", async () => {
    proxy.inject(publish, "drop-response");
    const first = await service.put(scope, "k", bytes("payload"), { idempotencyKey: "op-1" });
    const again = await service.put(scope, "k", bytes("payload"), { idempotencyKey: "op-1" });
    expect(again).toEqual(first);
    expect(await versions("k")).toEqual([first.version]);
  });

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
