import { describe, expect, it } from "vitest";
import {
  type AdapterHooks,
  AdapterService,
  parseGet,
  parsePut,
  servicePort,
} from "../src/adapter/index.js";
import { ArtifactError, defineCapabilities, type Scope } from "../src/index.js";

const scope: Scope = { kind: "app", app: "template" };
const shape = {
  durability: "volatile",
  maxPageLimit: 10,
  legacyListLimit: 10,
  quotas: { appliesTo: "global", bounds: { maxArtifactBytes: 8 } },
} as const;
const capabilities = defineCapabilities(shape);

/** Hooks that record what reached them, and fail with a plain Error when asked to read. */
function recordingHooks() {
  const published: { bytes: Uint8Array; size: number }[] = [];
  let closes = 0;
  const hooks: AdapterHooks = {
    async publish(request, bytes, digest) {
      published.push({ bytes, size: digest.size });
      return {
        scope: request.scope,
        name: request.name,
        version: published.length,
        mimeType: request.mimeType,
        size: digest.size,
        sha256: digest.sha256,
        createdAt: 1,
        metadata: request.metadata,
      };
    },
    read: async () => {
      throw new Error("disk on fire");
    },
    readMeta: async () => {
      throw new Error("disk on fire");
    },
    remove: async () => undefined,
    names: async (request) => ({ scope: request.scope, items: [] }),
    versions: async () => ({ items: [] }),
    legacyList: async () => [],
    scopes: async () => ({ items: [] }),
    closeBackend: async () => {
      closes += 1;
    },
  };
  return { hooks, published, closes: () => closes };
}

describe("AdapterService", () => {
  it("hands the hook a private copy and enforces maxArtifactBytes before it", async () => {
    const { hooks, published } = recordingHooks();
    const service = new AdapterService(hooks, capabilities);
    const data = new Uint8Array([1, 2, 3]);
    const meta = await service.put(scope, "a", data);
    data[0] = 9;
    expect(meta.size).toBe(3);
    expect([...(published[0]?.bytes ?? [])]).toEqual([1, 2, 3]);
    await expect(service.put(scope, "a", new Uint8Array(9))).rejects.toMatchObject({
      code: "artifact_too_large",
      detail: { limit: "max_artifact_bytes", bound: 8 },
    });
    expect(published).toHaveLength(1);
  });

  it("wraps a backend failure once as unavailable, keeping it as the cause", async () => {
    const service = new AdapterService(recordingHooks().hooks, capabilities);
    const failure = await service.get(scope, "a").catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ArtifactError);
    expect(failure).toMatchObject({ code: "unavailable", message: "get failed: disk on fire" });
  });

  it("takes a hook's synchronous answer or throw like a promise's", async () => {
    const { hooks } = recordingHooks();
    const stored = new Uint8Array([1, 2]);
    const meta = await new AdapterService(hooks, capabilities).put(scope, "a", stored);
    const refused = new ArtifactError("not_found", "no such version");
    const service = new AdapterService(
      {
        ...hooks,
        read: () => ({ meta, data: stored, shared: true }),
        readMeta: () => {
          throw refused;
        },
        names: () => {
          throw new Error("disk on fire");
        },
      },
      capabilities,
    );
    const artifact = await service.get(scope, "a");
    expect([...artifact.data]).toEqual([1, 2]);
    expect(artifact.data).not.toBe(stored);
    await expect(service.head(scope, "a")).rejects.toBe(refused);
    const failure = await service.listNames(scope).catch((error: unknown) => error);
    expect(failure).toMatchObject({
      code: "unavailable",
      message: "listNames failed: disk on fire",
    });
    expect((failure as ArtifactError).cause).toBeInstanceOf(Error);
    expect((failure as ArtifactError).cause).not.toBeInstanceOf(ArtifactError);
  });

  it("rejects a bad argument, never throws it, and leaves it unwrapped", async () => {
    const service = new AdapterService(recordingHooks().hooks, capabilities);
    let call: Promise<unknown> | undefined;
    expect(() => {
      call = service.get({ kind: "nowhere" } as unknown as Scope, "a");
    }).not.toThrow();
    await expect(call).rejects.toMatchObject({ code: "invalid_argument" });
  });

  it("refuses transfer without the transfer hooks", async () => {
    const service = new AdapterService(recordingHooks().hooks, capabilities);
    await expect(service.openUpload(scope, "a")).rejects.toMatchObject({
      code: "unsupported_transfer",
    });
    await expect(service.openDownload(scope, "a")).rejects.toMatchObject({
      code: "unsupported_transfer",
    });
  });

  it("refuses a transfer part its capabilities leave out, hooks or not, and a part declared without its hook", async () => {
    const reached: string[] = [];
    const hooks: AdapterHooks = {
      ...recordingHooks().hooks,
      beginUpload: async () => {
        reached.push("beginUpload");
        throw new Error("not here");
      },
      download: async () => {
        reached.push("download");
        throw new Error("not here");
      },
    };
    const transfer = { streamingUpload: false, streamingDownload: true, byteRanges: false };
    const service = new AdapterService(hooks, defineCapabilities({ ...shape, transfer }));
    await expect(service.openUpload(scope, "a")).rejects.toMatchObject({
      code: "unsupported_transfer",
    });
    await expect(
      service.openDownload(scope, "a", { range: { offset: 0, length: 1 } }),
    ).rejects.toMatchObject({ code: "unsupported_transfer" });
    expect(reached).toEqual([]);
    // The declared part reaches its hook.
    await expect(service.openDownload(scope, "a")).rejects.toMatchObject({ code: "unavailable" });
    expect(reached).toEqual(["download"]);
    const overclaimed = defineCapabilities({
      ...shape,
      transfer: { ...transfer, streamingUpload: true },
    });
    expect(() => new AdapterService(recordingHooks().hooks, overclaimed)).toThrow(
      /streamingUpload without beginUpload/,
    );
  });

  it("closes the backend once and then refuses the public operations and the port", async () => {
    const { hooks, closes } = recordingHooks();
    const service = new AdapterService(hooks, capabilities);
    const port = servicePort(service);
    await Promise.all([service.close(), service.close()]);
    expect(closes()).toBe(1);
    await expect(service.listNames(scope)).rejects.toMatchObject({ code: "closed" });
    await expect(port?.get(parseGet(scope, "a", undefined))).rejects.toMatchObject({
      code: "closed",
    });
  });

  it("serves parsed requests through its port with the same checks", async () => {
    const { hooks, published } = recordingHooks();
    const service = new AdapterService(hooks, capabilities);
    const port = servicePort(service);
    expect(port).toBeDefined();
    const meta = await port?.put(parsePut(scope, "a", new Uint8Array([5]), undefined));
    expect(meta?.version).toBe(1);
    expect(published).toHaveLength(1);
    await expect(
      port?.put(parsePut(scope, "a", new Uint8Array(9), undefined)),
    ).rejects.toMatchObject({ code: "artifact_too_large" });
  });

  it("requires maxArtifactBytes among the declared bounds", () => {
    const unbounded = defineCapabilities({
      durability: "volatile",
      maxPageLimit: 10,
      legacyListLimit: 10,
      quotas: { appliesTo: "global", bounds: {} },
    });
    expect(() => new AdapterService(recordingHooks().hooks, unbounded)).toThrow(/maxArtifactBytes/);
  });
});
