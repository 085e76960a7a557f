import type { RunStore, RunStoreBoundsOptions } from "@artifact-kit/core";
import { MemoryArtifactService } from "@artifact-kit/memory";
import { describe, expect, it } from "vitest";
import { ArtifactServiceRunStore, InMemoryRunStore, RUN_STORE_DEFAULTS } from "../src/index.js";

const stores: Record<string, (bounds?: RunStoreBoundsOptions) => RunStore> = {
  InMemoryRunStore: (bounds = {}) => new InMemoryRunStore({ bounds }),
  ArtifactServiceRunStore: (bounds = {}) =>
    new ArtifactServiceRunStore(new MemoryArtifactService(), { bounds }),
};

describe.each(Object.entries(stores))("%s", (_name, create) => {
  it("reports the default bounds and the configured ones", () => {
    expect(create().bounds()).toEqual(RUN_STORE_DEFAULTS);
    expect(create({ maxRuns: 2 }).bounds()).toEqual({ ...RUN_STORE_DEFAULTS, maxRuns: 2 });
  });
});

describe("InMemoryRunStore", () => {
  it("rejects unknown options", () => {
    expect(() => new InMemoryRunStore({ namespace: "x" } as object)).toThrow(
      expect.objectContaining({ code: "invalid_argument" }),
    );
  });
});
