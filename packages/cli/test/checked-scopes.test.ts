import type { ArtifactService } from "@artifact-kit/core";
import { MemoryArtifactService } from "@artifact-kit/memory";
import { describe, expect, it } from "vitest";
import { withCheckedListings } from "../src/pages.js";

// The CLI reads stores it does not trust through withCheckedListings: a scope page out of
// order or outside the level asked for is invalid_service_reply, an honest one passes.

describe("withCheckedListings: listScopes", () => {
  it("passes the store's own scope pages and rejects lying ones", async () => {
    const memory = new MemoryArtifactService();
    await memory.put({ kind: "user", app: "a", user: "u" }, "n", new Uint8Array([1]));
    const checked = withCheckedListings(memory);
    expect((await checked.listScopes({ kind: "user", app: "a" })).items).toEqual([
      { kind: "user", app: "a", user: "u" },
    ]);
    // Only what withCheckedListings calls for a scope listing: the store's limits and the page.
    const lying = (items: unknown[]) =>
      withCheckedListings({
        capabilities: () => memory.capabilities(),
        listScopes: async () => ({ items }),
      } as Partial<ArtifactService> as ArtifactService);
    await expect(
      lying([{ kind: "user", app: "b", user: "u" }]).listScopes({ kind: "user", app: "a" }),
    ).rejects.toMatchObject({ code: "invalid_service_reply" });
    await expect(
      lying([
        { kind: "app", app: "😀" },
        { kind: "app", app: "ｚ" },
      ]).listScopes(),
    ).rejects.toMatchObject({ code: "invalid_service_reply" });
    await memory.close();
  });
});
