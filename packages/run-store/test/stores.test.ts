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
});

describe("InMemoryRunStore", () => {
  it("rejects unknown options", () => {
    expect(() => new InMemoryRunStore({ namespace: "x" } as object)).toThrow(
      expect.objectContaining({ code: "invalid_argument" }),
    );
  });
});
