import type { ArtifactError, Scope } from "@artifact-kit/core";
import type { Bucket } from "@google-cloud/storage";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { GcsArtifactService } from "../src/index.js";
import { endpoint, freshBucket, newStorage } from "./support/emulator.js";
import { failure } from "./support/failure.js";
import {
  type FaultProxy,
  type SeenRequest,
  startFaultProxy,
  UNAVAILABLE,
} from "./support/fault-proxy.js";

const scope: Scope = { kind: "user", app: "app", user: "u" };
const bytes = (text: string) => new TextEncoder().encode(text);

// Requests by what they do in the adapter's layout (see src/layout.ts).
const allocation = (r: SeenRequest) => r.url.startsWith("/upload/") && r.url.includes("/a/");
const publish = (r: SeenRequest) => r.url.startsWith("/upload/") && r.url.includes("/n/");
const listing = (r: SeenRequest) => r.method === "GET" && /\/o\?/.test(r.url);
const versionDelete = (r: SeenRequest) => r.method === "DELETE" && r.url.includes("/n/");

describe("faults between the client and the emulator", () => {
  let proxy: FaultProxy;
  let bucket: Bucket;
  let service: GcsArtifactService;
  /** An observer that talks to the emulator directly, past the proxy. */
  let observer: GcsArtifactService;

  beforeAll(async () => {
    proxy = await startFaultProxy(endpoint());
  });
  afterAll(() => proxy.close());

  beforeEach(async () => {
    bucket = await freshBucket();
    service = new GcsArtifactService({ bucket: newStorage(proxy.endpoint).bucket(bucket.name) });
    observer = new GcsArtifactService({ bucket });
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

  it("a 503 is retried; a backend that keeps failing is unavailable, with its cause", async () => {
    proxy.inject(publish, UNAVAILABLE);
    expect((await service.put(scope, "n", bytes("x"))).version).toBe(1);
    proxy.inject(listing, UNAVAILABLE, Number.POSITIVE_INFINITY);
    const error = await service.listNames(scope).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "unavailable" });
    expect((error as ArtifactError).cause).toBeDefined();
    // A failed listing is an error, never "no versions".
    expect(await failure(service.get(scope, "n"))).toBe("unavailable");
  });

  it("a delay past the deadline is a timeout and publishes nothing", async () => {
    await service.put(scope, "n", bytes("1"));
    proxy.inject(allocation, { delayMs: 1_500 });
    expect(await failure(service.put(scope, "n", bytes("late"), { timeoutMs: 200 }))).toBe(
      "timeout",
    );
    expect(await versions("n")).toEqual([1]);
    const controller = new AbortController();
    proxy.inject(listing, { delayMs: 1_500 });
    const aborted = service.listNames(scope, { signal: controller.signal });
    controller.abort();
    expect(await failure(aborted)).toBe("aborted");
    // The abandoned allocation may land and burn a version; the next put still succeeds above it.
    const next = await service.put(scope, "n", bytes("2"));
    expect(next.version).toBeGreaterThan(1);
    expect(await versions("n")).toEqual([1, next.version]);
  });

  // Found by the seeded fault trials: the client library turned retries off on the Storage
  // object around the upload's clean-up (overlapping unconditional deletes) and never back on,
  // so every later 503 or lost reply failed its operation.
  it("a 503 is still retried after a streamed upload, and after a keyed delete", async () => {
    const upload = await service.openUpload(scope, "streamed");
    await upload.write(bytes("streamed"));
    await upload.finish();
    proxy.inject(publish, UNAVAILABLE);
    expect((await service.put(scope, "n", bytes("x"))).version).toBe(1);
    await service.put(scope, "k", bytes("keyed"), { idempotencyKey: "op-1" });
    await service.delete(scope, "k", 1);
    proxy.inject(listing, UNAVAILABLE);
    expect((await service.put(scope, "n", bytes("y"))).version).toBe(2);
  });

  // Found by the seeded fault trials: the client retried a version's DELETE whose reply was
  // lost, met 404, and the delete took it for another delete's win and went on to the next.
  it('a lost reply to delete("latest") never deletes a second version', async () => {
    for (const text of ["1", "2", "3"]) await service.put(scope, "n", bytes(text));
    proxy.inject(versionDelete, "drop-response");
    const outcome = await service.delete(scope, "n", "latest").then(
      () => "deleted",
      (error: ArtifactError) => error.code,
    );
    // The delete landed; its reply was lost: success, or the ambiguous unavailable.
    expect(["deleted", "unavailable"]).toContain(outcome);
    expect(await versions("n")).toEqual([1, 2]);
  });
});
