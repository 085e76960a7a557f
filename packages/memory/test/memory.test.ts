import { ArtifactError, isArtifactError, type Scope } from "@artifact-kit/core";
import { describe, expect, it } from "vitest";
import { MEMORY_DEFAULTS, MemoryArtifactService } from "../src/index.js";

const scope: Scope = { kind: "user", app: "app", user: "ada" };
const other: Scope = { kind: "user", app: "app", user: "bob" };
const bytes = (n: number) => new Uint8Array(n);

async function errorOf(action: () => Promise<unknown>): Promise<ArtifactError> {
  try {
    await action();
  } catch (error) {
    if (isArtifactError(error)) return error;
    throw error;
  }
  throw new Error("expected an ArtifactError");
}

describe("MemoryArtifactService", () => {
  it("rejects unknown and invalid configuration", () => {
    expect(() => new MemoryArtifactService({ maxBytes: 1 } as never)).toThrow(
      /memoryOptions.maxBytes/,
    );
    expect(() => new MemoryArtifactService({ maxScopeBytes: 0 })).toThrow(ArtifactError);
  });

  it("reports its configured bounds in capabilities()", () => {
    const { quotas, pagination, durability } = new MemoryArtifactService({
      maxScopeBytes: 10,
    }).capabilities();
    expect(durability).toBe("volatile");
    expect(quotas).toEqual({
      appliesTo: "global",
      bounds: {
        maxArtifactBytes: MEMORY_DEFAULTS.maxArtifactBytes,
        maxScopeBytes: 10,
        maxTotalBytes: MEMORY_DEFAULTS.maxTotalBytes,
        maxScopeArtifacts: MEMORY_DEFAULTS.maxScopeArtifacts,
        maxTotalArtifacts: MEMORY_DEFAULTS.maxTotalArtifacts,
      },
    });
    expect(pagination).toEqual({ maxPageLimit: 1000, legacyListLimit: 1000 });
  });

  it("reports the service-wide usage against its bounds in status()", async () => {
    const service = new MemoryArtifactService();
    expect(service.status()).toEqual({
      closed: false,
      quotaUsage: { maxTotalBytes: 0, maxTotalArtifacts: 0 },
    });
    await service.put(scope, "a", bytes(6));
    await service.put(other, "a", bytes(4));
    await service.put(scope, "b", bytes(1));
    expect(service.status().quotaUsage).toEqual({ maxTotalBytes: 11, maxTotalArtifacts: 3 });
    await service.delete(scope, "a", "all");
    expect(service.status().quotaUsage).toEqual({ maxTotalBytes: 5, maxTotalArtifacts: 2 });
    await service.close();
    expect(service.status()).toEqual({
      closed: true,
      quotaUsage: { maxTotalBytes: 0, maxTotalArtifacts: 0 },
    });
  });

  it("releases bytes and counts on delete but keeps the version high-water", async () => {
    const service = new MemoryArtifactService({ maxScopeBytes: 10, maxScopeArtifacts: 2 });
    await service.put(scope, "a", bytes(6));
    const error = await errorOf(() => service.put(scope, "a", bytes(5)));
    expect(error.code).toBe("quota_exceeded");
    expect(error.detail).toMatchObject({ limit: "max_scope_bytes", bound: 10 });
    await service.put(other, "a", bytes(5)); // another scope has its own budget
    await service.delete(scope, "a", "all");
    const meta = await service.put(scope, "a", bytes(10));
    expect(meta.version).toBe(2);
    await service.put(scope, "b", bytes(0));
    expect((await errorOf(() => service.put(scope, "c", bytes(0)))).detail.limit).toBe(
      "max_scope_artifacts",
    );
  });

  it("checks the service-wide bounds across scopes", async () => {
    const service = new MemoryArtifactService({ maxTotalArtifacts: 2 });
    await service.put(scope, "a", bytes(1));
    await service.put(other, "a", bytes(1));
    const error = await errorOf(() => service.put({ kind: "app", app: "x" }, "a", bytes(1)));
    expect(error.detail.limit).toBe("max_total_artifacts");
  });

  it("serves a page from a large scope without listing from the start", async () => {
    const service = new MemoryArtifactService({ maxPageLimit: 100 });
    for (let i = 0; i < 5_000; i++)
      await service.put(scope, `n${String(i).padStart(5, "0")}`, bytes(0));
    const page = await service.listNames(scope, { cursor: "n04949", limit: 100 });
    expect(page.items).toEqual(Array.from({ length: 50 }, (_, i) => `n0${4950 + i}`));
    expect(page.nextCursor).toBeUndefined();
  });
});
