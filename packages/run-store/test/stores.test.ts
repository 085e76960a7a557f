import { isArtifactError, type RunStore, type RunStoreBoundsOptions } from "@artifact-kit/core";
import { MemoryArtifactService } from "@artifact-kit/memory";
import { describe, expect, it } from "vitest";
import { ArtifactServiceRunStore, InMemoryRunStore, RUN_STORE_DEFAULTS } from "../src/index.js";

const stores: Record<string, (bounds?: RunStoreBoundsOptions) => RunStore> = {
  InMemoryRunStore: (bounds = {}) => new InMemoryRunStore({ bounds }),
  ArtifactServiceRunStore: (bounds = {}) =>
    new ArtifactServiceRunStore(new MemoryArtifactService(), { bounds }),
};

const codeOf = (error: unknown) => (isArtifactError(error) ? error.code : error);

describe.each(Object.entries(stores))("%s", (_name, create) => {
  it("reports the default bounds and the configured ones", () => {
    expect(create().bounds()).toEqual(RUN_STORE_DEFAULTS);
    expect(create({ maxRuns: 2 }).bounds()).toEqual({ ...RUN_STORE_DEFAULTS, maxRuns: 2 });
  });

  it("rejects unknown and non-positive bounds with invalid_argument", () => {
    const bad = [{ maxFiles: 3 }, { maxRuns: 0 }, { maxTotalBytes: 1.5 }, { maxBytesPerRun: "9" }];
    for (const bounds of bad) {
      expect(() => create(bounds as RunStoreBoundsOptions)).toThrow(
        expect.objectContaining({ code: "invalid_argument" }),
      );
    }
  });

  it("enforces maxArtifactsPerRun under concurrent registers", async () => {
    const store = create({ maxArtifactsPerRun: 3 });
    const results = await Promise.allSettled(
      ["a", "b", "c", "d", "e"].map((path) => store.register("run", "s", path, path)),
    );
    const refused = results.filter((result) => result.status === "rejected");
    expect(refused.map((result) => codeOf(result.reason))).toEqual([
      "quota_exceeded",
      "quota_exceeded",
    ]);
    expect(await store.artifacts("run")).toHaveLength(3);
  });

  it("holds text to its exact UTF-8 bytes at every byte bound, across runs", async () => {
    const store = create({ maxBytesPerArtifact: 8, maxBytesPerRun: 10, maxTotalBytes: 16 });
    const limitOf = (register: Promise<void>) =>
      register.then(
        () => "accepted",
        (error: unknown) =>
          isArtifactError(error, "quota_exceeded") ? error.detail?.limit : error,
      );
    // Four UTF-16 units, eight UTF-8 bytes: at the per-file bound, not over it.
    await store.register("r1", "s", "a", "éééé");
    expect(await limitOf(store.register("r1", "s", "big", "ééééé"))).toBe("max_bytes_per_artifact");
    await store.register("r1", "s", "b", "ab");
    expect(await limitOf(store.register("r1", "s", "c", "x"))).toBe("max_bytes_per_run");
    await store.register("r2", "s", "a", "abcdef");
    expect(await limitOf(store.register("r2", "s", "b", "x"))).toBe("max_total_bytes");
    // An upsert frees what it replaces.
    await store.register("r1", "s", "a", "abc");
    await store.register("r2", "s", "b", "wxyz");
    const sizes = async (runId: string) =>
      (await store.artifacts(runId)).map(({ path, size }) => [path, size]);
    expect(await sizes("r1")).toEqual([
      ["a", 3],
      ["b", 2],
    ]);
    expect(await sizes("r2")).toEqual([
      ["a", 6],
      ["b", 4],
    ]);
    // Two UTF-16 units, four UTF-8 bytes: 9 in the run, but 19 in all.
    expect(await limitOf(store.register("r1", "s", "c", "😀"))).toBe("max_total_bytes");
    await store.remove("r2", "a");
    expect(await limitOf(store.register("r1", "s", "c", "😀"))).toBe("accepted");
  });
});

describe("InMemoryRunStore", () => {
  it("rejects unknown options", () => {
    expect(() => new InMemoryRunStore({ namespace: "x" } as object)).toThrow(
      expect.objectContaining({ code: "invalid_argument" }),
    );
  });
});
