import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { scopeDigest } from "@artifact-kit/core";
import { describe, expect, it, vi } from "vitest";
import { createArtifactRuntime } from "../src/index.js";
import { appScope, bytes } from "./fixtures.js";
import { tempRoot } from "./temp.js";

describe("runtime profiles", () => {
  it("ephemeral_local is one shared memory adapter with one global quota", async () => {
    const runtime = await createArtifactRuntime("ephemeral_local", { maxTotalArtifacts: 2 });
    expect(runtime.status()).toMatchObject({ strategy: "shared", reclamation: false });
    expect(runtime.capabilities()).toMatchObject({
      durability: "volatile",
      quotas: { appliesTo: "global", bounds: { maxTotalArtifacts: 2 } },
    });
    await runtime.put(appScope("a"), "x", bytes("a"));
    await runtime.put(appScope("b"), "x", bytes("b"));
    await expect(runtime.put(appScope("c"), "x", bytes("c"))).rejects.toMatchObject({
      code: "quota_exceeded",
      detail: { limit: "max_total_artifacts" },
    });
    await runtime.close();
  });

  it("rejects unknown options and unknown profiles", async () => {
    await expect(
      createArtifactRuntime("ephemeral_local", { maxTotalBits: 1 } as never),
    ).rejects.toMatchObject({
      code: "invalid_argument",
      detail: { field: "memoryOptions.maxTotalBits" },
    });
    await expect(createArtifactRuntime("cloud" as never)).rejects.toMatchObject({
      code: "invalid_argument",
      detail: { field: "profile" },
    });
  });
});

describe("durable_local", () => {
  it("routes each scope to its own fs sub-root and reopens it after a restart", async () => {
    const root = await tempRoot();
    const first = await createArtifactRuntime("durable_local", { root });
    expect(first.status()).toMatchObject({ strategy: "exact_scope", reclamation: true });
    expect(first.capabilities()).toMatchObject({
      durability: "durable",
      quotas: { appliesTo: "per_shard" },
    });
    await first.put(appScope("a"), "x", bytes("a"));
    await first.put(appScope("b"), "x", bytes("b"));
    await first.close();
    expect((await readdir(join(root, "shards"))).sort()).toEqual(
      [scopeDigest(appScope("a")), scopeDigest(appScope("b"))].sort(),
    );

    const second = await createArtifactRuntime("durable_local", { root });
    await expect(second.get(appScope("b"), "x")).resolves.toMatchObject({ version: 1 });
    await expect(second.put(appScope("a"), "x", bytes("a2"))).resolves.toMatchObject({
      version: 2,
    });
    await second.close();
  });

  it("reclaims an idle fs worker at maxActiveScopes and reopens its data on the next call", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      const runtime = await createArtifactRuntime("durable_local", {
        root: await tempRoot(),
        maxActiveScopes: 1,
        idleScopeTimeoutMs: 1_000,
      });
      await runtime.put(appScope("a"), "x", bytes("a"));
      vi.setSystemTime(Date.now() + 1_000);
      await runtime.put(appScope("b"), "x", bytes("b"));
      vi.setSystemTime(Date.now() + 1_000);
      const reopened = await runtime.get(appScope("a"), "x");
      expect(new TextDecoder().decode(reopened.data)).toBe("a");
      expect(runtime.status()).toMatchObject({ activeScopes: 1, evictions: 2 });
      await runtime.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it("requires an absolute root and rejects unknown options, its own and the adapter's", async () => {
    const root = await tempRoot();
    const cases: [string, unknown][] = [
      ["root", { root: "relative/dir" }],
      ["root", undefined],
      ["durableLocalOptions.strategy", { root, strategy: "shared" }],
      ["fs.root", { root, fs: { root } }],
      ["fs.compress", { root, fs: { compress: true } }],
      ["idleScopeTimeoutMs", { root, idleScopeTimeoutMs: 0 }],
    ];
    for (const [field, options] of cases) {
      await expect(
        createArtifactRuntime("durable_local", options as never),
        field,
      ).rejects.toMatchObject({ code: "invalid_argument", detail: { field } });
    }
  });
});
