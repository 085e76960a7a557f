import {
  type ArtifactService,
  type ArtifactTransfer,
  defineCapabilities,
  hasTransfer,
} from "@artifact-kit/core";
import { MemoryArtifactService } from "@artifact-kit/memory";
import { expect } from "vitest";
import { memoryShards } from "../memory.js";
import { law, type RouterContext, type RouterLaw, type RouterUnderTest } from "./context.js";
import { appScope, bytes, deferred, ScriptedShards } from "./scripted-shards.js";

// Streaming transfer through the router: passed through to the workers part by part as they
// declare it, and an open transfer holds its worker (never reclaimed under it) exactly until
// it ends, on every path by which it can end.

const PARTS = ["streamingUpload", "streamingDownload", "byteRanges"] as const;

type Transferring = ArtifactService & ArtifactTransfer;

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

/** One worker at most: a second scope gets in only by reclaiming "a". */
function oneWorker({ router }: RouterContext) {
  const shards = new ScriptedShards("durable", "native");
  return { shards, service: router(shards, { maxActiveScopes: 1 }) };
}

async function expectPinned(service: RouterUnderTest, shards: ScriptedShards) {
  await expect(service.put(appScope("b"), "x", bytes("b"))).rejects.toMatchObject({
    code: "max_active_scopes_reached",
  });
  expect(shards.workers[0]?.closed).toBe(false);
}

async function expectReclaimable(service: RouterUnderTest, shards: ScriptedShards) {
  await expect(service.put(appScope("b"), "x", bytes("b"))).resolves.toMatchObject({ version: 1 });
  expect(shards.workers[0]?.closed).toBe(true);
  expect(service.status()).toMatchObject({ activeScopes: 1, evictions: 1 });
}

async function declaresAsTheFactory({ router }: RouterContext) {
  expect(router(memoryShards()).capabilities().transfer).toEqual(
    new MemoryArtifactService().capabilities().transfer,
  );
  expect(router(new ScriptedShards("durable")).capabilities().transfer).toBe(undefined);
  const uploadOnly = { streamingUpload: true, streamingDownload: false, byteRanges: false };
  const partial = router({
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
}

async function routesTransfers({ router }: RouterContext) {
  const shards = new ScriptedShards("volatile", "native");
  const service = router(shards);
  await expect(upload(service, "a", "alpha")).resolves.toMatchObject({ version: 1, size: 5 });
  await service.put(appScope("b"), "x", bytes("beta"));
  expect(await readAll(service, "a")).toBe("alpha");
  expect(await readAll(service, "b", { offset: 1, length: 2 })).toBe("et");
  expect((await service.get(appScope("a"), "x")).data).toEqual(bytes("alpha"));
  expect(shards.opened).toEqual(["a", "b"]);
  expect(service.status()).toMatchObject({ activeScopes: 2, failures: 0 });
}

async function validatesTransfers({ router }: RouterContext) {
  const shards = new ScriptedShards("durable", "native");
  const service = router(shards);
  const bad = [
    () => service.openUpload(appScope("a"), "a/../b"),
    () => service.openUpload({ kind: "app", app: "" }, "x"),
    () => service.openUpload(appScope("a"), "x", { maxBytes: 0 }),
    () => service.openUpload(appScope("a"), "x", { mimeType: "no-slash" }),
    () => service.openUpload(appScope("a"), "x", { chunk: 1 } as never),
    () => service.openUpload(appScope("a"), "x", { timeoutMs: 0 }),
    () => service.openDownload(appScope("a"), "x", { version: 0 }),
    () => service.openDownload(appScope("a"), "x", { range: { offset: -1, length: 1 } }),
    () =>
      service.openDownload(appScope("a"), "x", {
        range: { offset: 0, length: 1, end: 2 } as never,
      }),
  ];
  for (const call of bad) await expect(call()).rejects.toMatchObject({ code: "invalid_argument" });
  expect(shards.opened).toEqual([]);
  expect(service.status()).toMatchObject({ activeScopes: 0, openingScopes: 0, queuedRequests: 0 });
}

async function undeclaredIsUnsupported({ router }: RouterContext) {
  const shards = new ScriptedShards("durable");
  const service = router(shards);
  expect(hasTransfer(service)).toBe(true);
  for (const part of PARTS) expect(service.capabilities().transfer?.[part]).toBeFalsy();
  // The refusal says why: the part the workers do not declare.
  await expect(service.openUpload(appScope("a"), "x")).rejects.toMatchObject({
    code: "unsupported_transfer",
    detail: { transfer: "streamingUpload" },
    message: expect.stringMatching(/^(?=.*streamingUpload)(?=.*declare)/),
  });
  await expect(service.openDownload(appScope("a"), "x")).rejects.toMatchObject({
    code: "unsupported_transfer",
    detail: { transfer: "streamingDownload" },
  });
  await expect(
    service.openDownload(appScope("a"), "x", { range: { offset: 0, length: 1 } }),
  ).rejects.toMatchObject({ code: "unsupported_transfer", detail: { transfer: "byteRanges" } });
  expect(shards.opened).toEqual([]);
}

async function partialDeclaration({ router }: RouterContext) {
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
  const service = router({ capabilities: declared, open: () => new NoRanges() });
  await service.put(appScope("a"), "x", bytes("abc"));
  await expect(
    service.openDownload(appScope("a"), "x", { range: { offset: 0, length: 1 } }),
  ).rejects.toMatchObject({ code: "unsupported_transfer", detail: { transfer: "byteRanges" } });
  expect(await readAll(service, "a")).toBe("abc");
}

async function declaredButNotImplemented({ router }: RouterContext) {
  const shards = new ScriptedShards("durable", "declared_only");
  const service = router(shards);
  // The refusal says why: the worker has no openUpload.
  await expect(service.openUpload(appScope("a"), "x")).rejects.toMatchObject({
    code: "unsupported_transfer",
    message: expect.stringContaining("openUpload"),
  });
  await service.put(appScope("a"), "x", bytes("abc"));
  // Each refusal names the part asked for: whole downloads and ranges are parts of their own.
  await expect(service.openDownload(appScope("a"), "x")).rejects.toMatchObject({
    code: "unsupported_transfer",
    detail: { transfer: "streamingDownload" },
  });
  await expect(
    service.openDownload(appScope("a"), "x", { range: { offset: 0, length: 1 } }),
  ).rejects.toMatchObject({ code: "unsupported_transfer", detail: { transfer: "byteRanges" } });
  // Not a worker failure: the worker stays, and serves everything else.
  await service.put(appScope("a"), "x", bytes("a"));
  expect(service.status()).toMatchObject({ activeScopes: 1, failures: 0 });
}

async function transfersUnderAdmission({ router }: RouterContext) {
  const shards = new ScriptedShards("volatile", "native");
  const service = router(shards, { maxActiveScopes: 1 });
  await upload(service, "a", "a");
  await expect(service.openUpload(appScope("b"), "x")).rejects.toMatchObject({
    code: "max_active_scopes_reached",
  });
  const gate = deferred();
  shards.openGate = gate.promise;
  const waiting = router(shards, { maxRouterQueue: 1 });
  const first = waiting.openDownload(appScope("c"), "x", { timeoutMs: 30 });
  await expect(waiting.openUpload(appScope("d"), "x")).rejects.toMatchObject({
    code: "overloaded",
  });
  await expect(first).rejects.toMatchObject({ code: "timeout" });
  gate.resolve();
}

async function failedTransferRetires({ router }: RouterContext) {
  const shards = new ScriptedShards("durable", "native");
  const service = router(shards);
  await upload(service, "a", "a");
  shards.hook = (operation) => {
    if (operation === "openDownload") throw new Error("disk on fire");
  };
  await expect(service.openDownload(appScope("a"), "x")).rejects.toMatchObject({
    code: "unavailable",
  });
  expect(service.status()).toMatchObject({ activeScopes: 0, failures: 1 });
  expect(shards.workers[0]?.closed).toBe(true);
  shards.hook = () => undefined;
  expect(await readAll(service, "a")).toBe("a");
}

async function closeStopsTransfers({ router }: RouterContext) {
  const shards = new ScriptedShards("durable", "native");
  const service = router(shards);
  await service.put(appScope("b"), "x", bytes("b".repeat(10)));
  const sink = await service.openUpload(appScope("a"), "x");
  await sink.write(bytes("half"));
  const source = await service.openDownload(appScope("b"), "x", {
    range: { offset: 0, length: 4 },
  });
  await service.close();
  await expect(sink.write(bytes("more"))).rejects.toMatchObject({ code: "closed" });
  await expect(sink.finish()).rejects.toMatchObject({ code: "closed" });
  await expect(source.read()).rejects.toMatchObject({ code: "closed" });
  await expect(sink.abort()).resolves.toBeUndefined();
  await expect(source.cancel()).resolves.toBeUndefined();
  expect(shards.workers.map((worker) => worker.closed)).toEqual([true, true]);
  // The workers' stores outlive them (durable): the aborted upload left nothing behind.
  const reopened = router(shards);
  await expect(reopened.head(appScope("a"), "x")).rejects.toMatchObject({ code: "not_found" });
  await expect(reopened.get(appScope("b"), "x")).resolves.toMatchObject({ version: 1 });
}

async function closeWhileOpening({ router }: RouterContext) {
  const shards = new ScriptedShards("durable", "native");
  const service = router(shards);
  await service.put(appScope("a"), "x", bytes("a"));
  const gate = deferred();
  shards.hook = (operation) => (operation === "openUpload" ? gate.promise : undefined);
  const opening = service.openUpload(appScope("a"), "y");
  const closing = service.close();
  gate.resolve();
  await expect(opening).rejects.toMatchObject({ code: "closed" });
  await closing;
  expect(shards.workers[0]?.closed).toBe(true);
  const reopened = router(shards);
  await expect(reopened.head(appScope("a"), "y")).rejects.toMatchObject({ code: "not_found" });
}

async function uploadPinsUntilFinished(context: RouterContext) {
  const { service, shards } = oneWorker(context);
  const sink = await service.openUpload(appScope("a"), "x");
  await sink.write(bytes("still "));
  await expectPinned(service, shards);
  await sink.write(bytes("writing"));
  await expect(sink.finish()).resolves.toMatchObject({ version: 1, size: 13 });
  await expectReclaimable(service, shards);
  await expect(service.get(appScope("a"), "x")).resolves.toMatchObject({ size: 13 });
}

async function downloadPinsUntilCancelled(context: RouterContext) {
  const { service, shards } = oneWorker(context);
  await service.put(appScope("a"), "x", bytes("abcdef"));
  const source = await service.openDownload(appScope("a"), "x");
  await expectPinned(service, shards);
  await source.cancel();
  await expectReclaimable(service, shards);
}

async function downloadPinsUntilItsLastByte(context: RouterContext) {
  const { service, shards } = oneWorker(context);
  await service.put(appScope("a"), "x", bytes("abcdef"));
  const source = await service.openDownload(appScope("a"), "x", {
    range: { offset: 2, length: 3 },
  });
  await expectPinned(service, shards);
  expect(await source.read()).toEqual(bytes("cde"));
  await expectReclaimable(service, shards);
  await expect(source.read()).resolves.toBeUndefined();
}

async function emptyDownloadEndsAtItsFinalRead(context: RouterContext) {
  const { service, shards } = oneWorker(context);
  await service.put(appScope("a"), "x", new Uint8Array());
  const source = await service.openDownload(appScope("a"), "x");
  await expect(source.read()).resolves.toBeUndefined();
  await expectReclaimable(service, shards);
}

function uploadEnds(how: "abort" | "refused") {
  return async (context: RouterContext) => {
    const { service, shards } = oneWorker(context);
    const sink = await service.openUpload(appScope("a"), "x", { maxBytes: 4 });
    await sink.write(bytes("ab"));
    if (how === "abort") await sink.abort(new Error("changed my mind"));
    else {
      await expect(sink.write(bytes("too long"))).rejects.toMatchObject({
        code: "artifact_too_large",
      });
    }
    await expectReclaimable(service, shards);
    await expect(service.head(appScope("a"), "x")).rejects.toMatchObject({ code: "not_found" });
  };
}

/**
 * A call the upload refuses without failing (a chunk that is not bytes, a write while another
 * is in flight) leaves it open, its worker held.
 */
async function refusedChunkKeepsTheUpload(context: RouterContext) {
  const { service, shards } = oneWorker(context);
  const sink = await service.openUpload(appScope("a"), "x");
  await expect(sink.write("text" as never)).rejects.toMatchObject({ code: "invalid_argument" });
  await expectPinned(service, shards);
  const first = sink.write(bytes("o"));
  await expect(sink.write(bytes("too soon"))).rejects.toMatchObject({
    code: "invalid_argument",
  });
  await first;
  await expectPinned(service, shards);
  await sink.write(bytes("k"));
  await expect(sink.finish()).resolves.toMatchObject({ size: 2 });
  await expectReclaimable(service, shards);
}

async function abortedSignalLetsGo(context: RouterContext) {
  const { service, shards } = oneWorker(context);
  const controller = new AbortController();
  const sink = await service.openUpload(appScope("a"), "x", { signal: controller.signal });
  await sink.write(bytes("ab"));
  controller.abort(new Error("owner went away"));
  // Nobody calls the upload again: the router stops the worker's upload, then lets go of the
  // worker by itself (the turn after, it has).
  await new Promise((resolve) => setImmediate(resolve));
  await expectReclaimable(service, shards);
  await expect(sink.finish()).rejects.toMatchObject({ code: "aborted" });
}

/**
 * A transfer that ends on several paths at once (its last byte and a cancel, two aborts and a
 * finish) lets its worker go once: a call in flight on it afterwards still pins it.
 */
async function endedOnSeveralPathsAtOnce(context: RouterContext) {
  const { service, shards } = oneWorker(context);
  await service.put(appScope("a"), "x", bytes("abc"));
  const source = await service.openDownload(appScope("a"), "x");
  await Promise.all([source.read(), source.cancel(), source.cancel()]);
  const sink = await service.openUpload(appScope("a"), "y");
  await sink.write(bytes("y"));
  await Promise.all([sink.abort(), sink.abort(), sink.finish().catch(() => undefined)]);
  const gate = deferred();
  shards.hook = () => gate.promise;
  const slow = service.get(appScope("a"), "x");
  await expectPinned(service, shards);
  gate.resolve();
  await expect(slow).resolves.toMatchObject({ version: 1 });
  shards.hook = () => undefined;
  await expectReclaimable(service, shards);
}

/**
 * A worker that ignores its callers' signals (a third party's may) and whose uploads open only
 * once `gate` resolves: the router alone watches the caller's signal.
 */
function signalDeaf(worker: ArtifactService & ArtifactTransfer, gate: Promise<void>) {
  const deaf: ArtifactService & ArtifactTransfer = {
    capabilities: () => worker.capabilities(),
    put: (...args) => worker.put(...args),
    get: (...args) => worker.get(...args),
    head: (...args) => worker.head(...args),
    delete: (...args) => worker.delete(...args),
    listNames: (...args) => worker.listNames(...args),
    listVersions: (...args) => worker.listVersions(...args),
    list: (...args) => worker.list(...args),
    listScopes: (...args) => worker.listScopes(...args),
    openUpload: async (scope, name, options) => {
      await gate;
      const { signal: _ignored, ...rest } = options ?? {};
      return worker.openUpload(scope, name, rest);
    },
    openDownload: (...args) => worker.openDownload(...args),
    close: () => worker.close(),
  };
  return deaf;
}

/** A signal that aborts while the worker is opening the transfer still ends it, at once. */
async function abortedWhileOpening({ router }: RouterContext) {
  const shards = new ScriptedShards("durable", "native");
  const gate = deferred();
  const service = router(
    {
      capabilities: shards.capabilities,
      open: async (shard) => signalDeaf((await shards.open(shard)) as Transferring, gate.promise),
    },
    { maxActiveScopes: 1 },
  );
  const controller = new AbortController();
  const opening = service.openUpload(appScope("a"), "x", { signal: controller.signal });
  await new Promise((resolve) => setImmediate(resolve));
  controller.abort(new Error("owner went away"));
  gate.resolve();
  const sink = await opening.catch(() => undefined);
  if (sink) await expect(sink.write(bytes("late"))).rejects.toMatchObject({ code: "aborted" });
  // Nobody calls the upload again: the router let go of its worker all the same.
  await new Promise((resolve) => setImmediate(resolve));
  await expectReclaimable(service, shards);
  await expect(service.head(appScope("a"), "x")).rejects.toMatchObject({ code: "not_found" });
}

export const TRANSFER_LAWS: readonly RouterLaw[] = [
  law(
    "transfer",
    "declared exactly as the factory declares it, part by part",
    declaresAsTheFactory,
  ),
  law("transfer", "uploads, downloads and ranges reach their scope's worker", routesTransfers),
  law("transfer", "bad transfer input is invalid_argument and opens no worker", validatesTransfers),
  law(
    "transfer",
    "an undeclared transfer is unsupported_transfer before any worker opens",
    undeclaredIsUnsupported,
  ),
  law(
    "transfer",
    "an undeclared part of a partial declaration is refused (no buffering fallback)",
    partialDeclaration,
  ),
  law(
    "transfer",
    "a worker that declares transfer without it is unsupported_transfer, not a failure",
    declaredButNotImplemented,
  ),
  law(
    "transfer",
    "transfers open under the admission bounds and their one deadline",
    transfersUnderAdmission,
  ),
  law("transfer", "a transfer's backend failure retires its worker", failedTransferRetires),
  law(
    "transfer",
    "close aborts open uploads, cancels open downloads, then closes workers",
    closeStopsTransfers,
  ),
  law("transfer", "close stops a transfer its worker was still opening", closeWhileOpening),
  law("transfer", "an open upload pins its worker until it finishes", uploadPinsUntilFinished),
  law("transfer", "an open download pins its worker until cancelled", downloadPinsUntilCancelled),
  law(
    "transfer",
    "a download lets its worker go at its last byte, without a final read",
    downloadPinsUntilItsLastByte,
  ),
  law(
    "transfer",
    "an empty download lets its worker go at its final read",
    emptyDownloadEndsAtItsFinalRead,
  ),
  law(
    "transfer",
    "an aborted upload lets its worker go and publishes nothing",
    uploadEnds("abort"),
  ),
  law(
    "transfer",
    "a failed upload lets its worker go and publishes nothing",
    uploadEnds("refused"),
  ),
  law(
    "transfer",
    "a call refused without failing the upload (a chunk not bytes, a write during a write) keeps it open and its worker held",
    refusedChunkKeepsTheUpload,
  ),
  law("transfer", "an upload whose signal aborts lets its worker go", abortedSignalLetsGo),
  law(
    "transfer",
    "a transfer ended on several paths at once lets its worker go once",
    endedOnSeveralPathsAtOnce,
  ),
  law(
    "transfer",
    "an upload whose signal aborts while its worker opens it is ended and lets its worker go",
    abortedWhileOpening,
  ),
];
