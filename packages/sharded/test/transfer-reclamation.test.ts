import type { DownloadSource, UploadSink } from "@artifact-kit/core";
import { describe, expect, it } from "vitest";
import { ShardedArtifactService } from "../src/index.js";
import { appScope, bytes, ScriptedShards } from "./fixtures.js";

// A worker is reclaimed at capacity as soon as nothing is in flight on it, whatever the idle
// timeout (left at its default of a minute here, so its sweep never runs during a test). These
// tests wait in real time, a few multiples of a short transfer deadline, to show that time
// alone never frees a worker an open transfer holds.
const IDLE_MS = 25;
const pastIdle = () => new Promise((resolve) => setTimeout(resolve, IDLE_MS * 3));

/** One worker at most: a second scope gets in only by reclaiming "a". */
function router(shards = new ScriptedShards("durable", "native")) {
  return { shards, service: new ShardedArtifactService(shards, { maxActiveScopes: 1 }) };
}

async function expectPinned(service: ShardedArtifactService, shards: ScriptedShards) {
  await pastIdle();
  await expect(service.put(appScope("b"), "x", bytes("b"))).rejects.toMatchObject({
    code: "max_active_scopes_reached",
  });
  expect(shards.workers[0]?.closed).toBe(false);
}

async function expectReclaimable(service: ShardedArtifactService, shards: ScriptedShards) {
  await pastIdle();
  await expect(service.put(appScope("b"), "x", bytes("b"))).resolves.toMatchObject({ version: 1 });
  expect(shards.workers[0]?.closed).toBe(true);
  expect(service.status()).toMatchObject({ activeScopes: 1, evictions: 1 });
}

describe("idle reclamation with transfers open", () => {
  it("never reclaims a worker while an upload on it is open; finish lets it go", async () => {
    const { service, shards } = router();
    const sink = await service.openUpload(appScope("a"), "x");
    await sink.write(bytes("still "));
    await expectPinned(service, shards);
    await sink.write(bytes("writing"));
    await expect(sink.finish()).resolves.toMatchObject({ version: 1, size: 13 });
    await expectReclaimable(service, shards);
    // Durable: "a" reopens with the upload published.
    await pastIdle();
    await expect(service.get(appScope("a"), "x")).resolves.toMatchObject({ size: 13 });
  });

  it("never reclaims a worker while a download on it is open; cancel lets it go", async () => {
    const { service, shards } = router();
    await service.put(appScope("a"), "x", bytes("abcdef"));
    const source = await service.openDownload(appScope("a"), "x");
    await expectPinned(service, shards);
    await source.cancel();
    await expectReclaimable(service, shards);
  });

  it("lets the worker go once a download has handed out its last byte, without a final read", async () => {
    const { service, shards } = router();
    await service.put(appScope("a"), "x", bytes("abcdef"));
    const source = await service.openDownload(appScope("a"), "x", {
      range: { offset: 2, length: 3 },
    });
    expect(await source.read()).toEqual(bytes("cde"));
    await expectReclaimable(service, shards);
    await expect(source.read()).resolves.toBeUndefined();
  });

  const endings: [string, (sink: UploadSink) => Promise<unknown>][] = [
    ["is aborted", (sink) => sink.abort(new Error("changed my mind"))],
    [
      "fails (past its maxBytes)",
      (sink) =>
        expect(sink.write(bytes("too long"))).rejects.toMatchObject({
          code: "artifact_too_large",
        }),
    ],
  ];
  for (const [how, end] of endings) {
    it(`lets the worker go when an upload ${how}, and publishes nothing`, async () => {
      const { service, shards } = router();
      const sink = await service.openUpload(appScope("a"), "x", { maxBytes: 4 });
      await sink.write(bytes("ab"));
      await end(sink);
      await expectReclaimable(service, shards);
      await pastIdle();
      await expect(service.head(appScope("a"), "x")).rejects.toMatchObject({ code: "not_found" });
    });
  }

  it("keeps the worker through a refused write (a chunk that is not bytes): the upload goes on", async () => {
    const { service, shards } = router();
    const sink = await service.openUpload(appScope("a"), "x");
    await expect(sink.write("text" as never)).rejects.toMatchObject({ code: "invalid_argument" });
    await expectPinned(service, shards);
    await sink.write(bytes("ok"));
    await expect(sink.finish()).resolves.toMatchObject({ size: 2 });
  });

  const abandoned: [string, (service: ShardedArtifactService) => Promise<unknown>][] = [
    [
      "an upload",
      async (service) => {
        const sink = await service.openUpload(appScope("a"), "x", { timeoutMs: IDLE_MS });
        await sink.write(bytes("left behind"));
        return sink;
      },
    ],
    [
      "a download",
      async (service) => {
        await service.put(appScope("a"), "y", bytes("abc"));
        return service.openDownload(appScope("a"), "y", { timeoutMs: IDLE_MS });
      },
    ],
  ];
  for (const [what, open] of abandoned) {
    it(`lets the worker go when ${what} left untouched passes its deadline`, async () => {
      const { service, shards } = router();
      const transfer = await open(service);
      await pastIdle();
      await expectReclaimable(service, shards);
      const later =
        "finish" in (transfer as object)
          ? (transfer as UploadSink).finish()
          : (transfer as DownloadSource).read();
      await expect(later).rejects.toMatchObject({ code: "timeout" });
      await pastIdle();
      await expect(service.head(appScope("a"), "x")).rejects.toMatchObject({ code: "not_found" });
    });
  }

  it("lets the worker go when the upload's signal aborts", async () => {
    const { service, shards } = router();
    const controller = new AbortController();
    const sink = await service.openUpload(appScope("a"), "x", { signal: controller.signal });
    await sink.write(bytes("ab"));
    controller.abort(new Error("owner went away"));
    await expectReclaimable(service, shards);
    await expect(sink.finish()).rejects.toMatchObject({ code: "aborted" });
  });
});
