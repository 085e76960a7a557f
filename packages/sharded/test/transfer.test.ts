import { type ArtifactTransfer, defineCapabilities, hasTransfer } from "@artifact-kit/core";
import { MemoryArtifactService } from "@artifact-kit/memory";
import { describe, expect, it } from "vitest";
import { memoryShards, ShardedArtifactService } from "../src/index.js";
import { appScope, bytes, deferred, ScriptedShards } from "./fixtures.js";

const PARTS = ["streamingUpload", "streamingDownload", "byteRanges"] as const;

async function upload(router: ArtifactTransfer, app: string, text: string) {
  const sink = await router.openUpload(appScope(app), "x");
  await sink.write(bytes(text));
  return sink.finish();
}

async function readAll(
  router: ArtifactTransfer,
  app: string,
  range?: { offset: number; length: number },
) {
  const source = await router.openDownload(appScope(app), "x", range ? { range } : {});
  let text = "";
  for (let piece = await source.read(); piece; piece = await source.read()) {
    text += new TextDecoder().decode(piece);
  }
  return text;
}

describe("streaming transfer pass-through", () => {
  it("declares transfer exactly as the factory does, part by part", () => {
    const overMemory = new ShardedArtifactService(memoryShards());
    expect(overMemory.capabilities().transfer).toEqual(
      new MemoryArtifactService().capabilities().transfer,
    );
    expect(new ShardedArtifactService(new ScriptedShards("durable")).capabilities().transfer).toBe(
      undefined,
    );
    const uploadOnly = { streamingUpload: true, streamingDownload: false, byteRanges: false };
    const partial = new ShardedArtifactService({
      capabilities: defineCapabilities({
        durability: "volatile",
        maxPageLimit: 10,
        legacyListLimit: 10,
        quotas: { appliesTo: "global", bounds: {} },
        transfer: uploadOnly,
      }),
      open: () => new MemoryArtifactService(),
    });
    expect(partial.capabilities().transfer).toEqual(uploadOnly);
  });

  it("routes each transfer to its scope's worker: uploads publish there, downloads and ranges read there", async () => {
    const shards = new ScriptedShards("volatile", "native");
    const router = new ShardedArtifactService(shards);
    await expect(upload(router, "a", "alpha")).resolves.toMatchObject({ version: 1, size: 5 });
    await router.put(appScope("b"), "x", bytes("beta"));
    expect(await readAll(router, "a")).toBe("alpha");
    expect(await readAll(router, "b", { offset: 1, length: 2 })).toBe("et");
    expect((await router.get(appScope("a"), "x")).data).toEqual(bytes("alpha"));
    expect(shards.opened).toEqual(["a", "b"]);
    expect(router.status()).toMatchObject({ activeScopes: 2, failures: 0 });
  });

  it("validates transfer input itself: invalid_argument, and no worker is opened", async () => {
    const shards = new ScriptedShards("durable", "native");
    const router = new ShardedArtifactService(shards);
    const bad = [
      () => router.openUpload(appScope("a"), "a/../b"),
      () => router.openUpload({ kind: "app", app: "" }, "x"),
      () => router.openUpload(appScope("a"), "x", { maxBytes: 0 }),
      () => router.openUpload(appScope("a"), "x", { mimeType: "no-slash" }),
      () => router.openUpload(appScope("a"), "x", { chunk: 1 } as never),
      () => router.openUpload(appScope("a"), "x", { timeoutMs: 0 }),
      () => router.openDownload(appScope("a"), "x", { version: 0 }),
      () => router.openDownload(appScope("a"), "x", { range: { offset: -1, length: 1 } }),
      () =>
        router.openDownload(appScope("a"), "x", {
          range: { offset: 0, length: 1, end: 2 } as never,
        }),
    ];
    for (const call of bad)
      await expect(call()).rejects.toMatchObject({ code: "invalid_argument" });
    expect(shards.opened).toEqual([]);
    expect(router.status()).toMatchObject({ activeScopes: 0, openingScopes: 0, queuedRequests: 0 });
  });

  it("says unsupported_transfer, before opening any worker, when the factory declares no transfer", async () => {
    const shards = new ScriptedShards("durable");
    const router = new ShardedArtifactService(shards);
    // What @artifact-kit/stream negotiates on: an undeclared part is unsupported_transfer
    // there, whatever methods the service has (the router always has them).
    expect(hasTransfer(router)).toBe(true);
    for (const part of PARTS) expect(router.capabilities().transfer?.[part]).toBeFalsy();
    await expect(router.openUpload(appScope("a"), "x")).rejects.toMatchObject({
      code: "unsupported_transfer",
      detail: { transfer: "streamingUpload" },
    });
    await expect(router.openDownload(appScope("a"), "x")).rejects.toMatchObject({
      code: "unsupported_transfer",
      detail: { transfer: "streamingDownload" },
    });
    await expect(
      router.openDownload(appScope("a"), "x", { range: { offset: 0, length: 1 } }),
    ).rejects.toMatchObject({ code: "unsupported_transfer", detail: { transfer: "byteRanges" } });
    expect(shards.opened).toEqual([]);
  });

  it("refuses an undeclared part of a partial declaration (no buffering fallback)", async () => {
    const declared = defineCapabilities({
      durability: "volatile",
      quotas: new MemoryArtifactService().capabilities().quotas,
      maxPageLimit: 100,
      legacyListLimit: 100,
      transfer: { streamingUpload: true, streamingDownload: true, byteRanges: false },
    });
    // A memory store that serves ranges but does not declare them: the router must not either.
    class NoRanges extends MemoryArtifactService {
      override capabilities() {
        return declared;
      }
    }
    const router = new ShardedArtifactService({
      capabilities: declared,
      open: () => new NoRanges(),
    });
    await router.put(appScope("a"), "x", bytes("abc"));
    await expect(
      router.openDownload(appScope("a"), "x", { range: { offset: 0, length: 1 } }),
    ).rejects.toMatchObject({ code: "unsupported_transfer", detail: { transfer: "byteRanges" } });
    expect(await readAll(router, "a")).toBe("abc");
  });

  it("says unsupported_transfer when a worker declares transfer but does not implement it", async () => {
    const shards = new ScriptedShards("durable", "declared_only");
    const router = new ShardedArtifactService(shards);
    await expect(router.openUpload(appScope("a"), "x")).rejects.toMatchObject({
      code: "unsupported_transfer",
    });
    // Not a worker failure: the worker stays, and serves everything else.
    await router.put(appScope("a"), "x", bytes("a"));
    expect(router.status()).toMatchObject({ activeScopes: 1, failures: 0 });
  });

  it("opens transfers under the admission bounds and the request's one deadline", async () => {
    const shards = new ScriptedShards("volatile", "native");
    const router = new ShardedArtifactService(shards, { maxActiveScopes: 1 });
    await upload(router, "a", "a");
    await expect(router.openUpload(appScope("b"), "x")).rejects.toMatchObject({
      code: "max_active_scopes_reached",
    });
    const gate = deferred();
    shards.openGate = gate.promise;
    const waiting = new ShardedArtifactService(shards, { maxRouterQueue: 1 });
    const first = waiting.openDownload(appScope("c"), "x", { timeoutMs: 30 });
    await expect(waiting.openUpload(appScope("d"), "x")).rejects.toMatchObject({
      code: "overloaded",
    });
    await expect(first).rejects.toMatchObject({ code: "timeout" });
    gate.resolve();
    await waiting.close();
  });

  it("retires a worker whose transfer fails with a backend failure", async () => {
    const shards = new ScriptedShards("durable", "native");
    const router = new ShardedArtifactService(shards);
    await upload(router, "a", "a");
    shards.hook = (operation) => {
      if (operation === "openDownload") throw new Error("disk on fire");
    };
    await expect(router.openDownload(appScope("a"), "x")).rejects.toMatchObject({
      code: "unavailable",
    });
    expect(router.status()).toMatchObject({ activeScopes: 0, failures: 1 });
    expect(shards.workers[0]?.closed).toBe(true);
    shards.hook = () => undefined;
    expect(await readAll(router, "a")).toBe("a");
  });
});

describe("close with transfers open", () => {
  it("aborts open uploads (nothing published), cancels open downloads, then closes the workers", async () => {
    const shards = new ScriptedShards("durable", "native");
    const router = new ShardedArtifactService(shards);
    await router.put(appScope("b"), "x", bytes("b".repeat(10)));
    const sink = await router.openUpload(appScope("a"), "x");
    await sink.write(bytes("half"));
    const source = await router.openDownload(appScope("b"), "x", {
      range: { offset: 0, length: 4 },
    });

    await router.close();
    await expect(sink.write(bytes("more"))).rejects.toMatchObject({ code: "closed" });
    await expect(sink.finish()).rejects.toMatchObject({ code: "closed" });
    await expect(source.read()).rejects.toMatchObject({ code: "closed" });
    await expect(sink.abort()).resolves.toBeUndefined();
    await expect(source.cancel()).resolves.toBeUndefined();
    expect(shards.workers.map((worker) => worker.closed)).toEqual([true, true]);
    await expect(router.openUpload(appScope("a"), "x")).rejects.toMatchObject({ code: "closed" });

    // The workers' stores outlive them (durable): the aborted upload left nothing behind.
    const reopened = new ShardedArtifactService(shards);
    await expect(reopened.head(appScope("a"), "x")).rejects.toMatchObject({ code: "not_found" });
    await expect(reopened.get(appScope("b"), "x")).resolves.toMatchObject({ version: 1 });
    await reopened.close();
  });

  it("stops a transfer whose worker was still opening it when close() ran", async () => {
    const shards = new ScriptedShards("durable", "native");
    const router = new ShardedArtifactService(shards);
    await router.put(appScope("a"), "x", bytes("a"));
    const gate = deferred();
    shards.hook = (operation) => (operation === "openUpload" ? gate.promise : undefined);
    const opening = router.openUpload(appScope("a"), "y");
    const closing = router.close();
    gate.resolve();
    await expect(opening).rejects.toMatchObject({ code: "closed" });
    await closing;
  });
});
