import { ArtifactError, type Scope } from "@artifact-kit/core";
import { MemoryArtifactService } from "@artifact-kit/memory";
import { describe, expect, it } from "vitest";
import { ArtifactServiceRunStore, DEFAULT_NAMESPACE } from "../src/index.js";
import { markerName } from "../src/service-layout.js";

const runScope = (runId: string, namespace = DEFAULT_NAMESPACE): Scope => ({
  kind: "user",
  app: namespace,
  user: runId,
});

describe("ArtifactServiceRunStore", () => {
  it("keeps stores with different namespaces apart on one service", async () => {
    const service = new MemoryArtifactService();
    const one = new ArtifactServiceRunStore(service, { namespace: "one" });
    const two = new ArtifactServiceRunStore(service, { namespace: "two", bounds: { maxRuns: 1 } });
    await one.register("run", "s", "a", "from one");
    await one.register("other", "s", "a", "from one");
    expect(await two.find("run", "a")).toBeUndefined();
    await two.register("run", "s", "a", "from two");
    expect(await one.find("run", "a")).toBe("from one");
  });

  it("reads text back exactly, a leading U+FEFF included, through a new store", async () => {
    const service = new MemoryArtifactService();
    await new ArtifactServiceRunStore(service).register("run", "s", "bom.txt", "\uFEFFhi");
    expect(await new ArtifactServiceRunStore(service).find("run", "bom.txt")).toBe("\uFEFFhi");
  });

  it("keeps each file as one artifact with its step id, order and encoding in metadata", async () => {
    const service = new MemoryArtifactService();
    const store = new ArtifactServiceRunStore(service);
    await store.register("run", "s1", "a.txt", "v1");
    await store.register("run", "s2", "a.txt", "v2");
    const versions = await service.listVersions(runScope("run"), "a.txt");
    expect(versions.items.map((meta) => [meta.mimeType, meta.metadata])).toEqual([
      ["text/plain; charset=utf-8", { stepId: "s2", order: 1, encoding: "utf8" }],
    ]);
  });

  it("passes a service quota through and leaves no trace of the refused register", async () => {
    const service = new MemoryArtifactService({ maxScopeBytes: 4 });
    const store = new ArtifactServiceRunStore(service, { bounds: { maxRuns: 1 } });
    await expect(store.register("run", "s", "big", "12345")).rejects.toMatchObject({
      code: "quota_exceeded",
      detail: { limit: "max_scope_bytes" },
    });
    await store.register("another-run", "s", "small", "1234");
    const reopened = new ArtifactServiceRunStore(service, { bounds: { maxRuns: 1 } });
    expect(await reopened.artifacts("run")).toEqual([]);
    expect(await reopened.find("another-run", "small")).toBe("1234");
  });

  it("drops a run marker left without files by an interrupted register", async () => {
    const service = new MemoryArtifactService();
    await service.put(
      { kind: "app", app: DEFAULT_NAMESPACE },
      markerName("ghost"),
      new Uint8Array(),
    );
    const store = new ArtifactServiceRunStore(service, { bounds: { maxRuns: 1 } });
    expect(await store.artifacts("ghost")).toEqual([]);
    await store.register("real", "s", "a", "counts as the only run");
    expect(await store.artifacts("real")).toHaveLength(1);
  });

  it("reports a file it did not write as corrupt_artifact", async () => {
    const service = new MemoryArtifactService();
    await service.put({ kind: "app", app: DEFAULT_NAMESPACE }, markerName("run"), new Uint8Array());
    await service.put(runScope("run"), "foreign", new Uint8Array([1]));
    const store = new ArtifactServiceRunStore(service);
    await expect(store.artifacts("run")).rejects.toMatchObject({ code: "corrupt_artifact" });
  });

  it("surfaces a closed service as closed, never as a bare Error", async () => {
    const service = new MemoryArtifactService();
    const store = new ArtifactServiceRunStore(service);
    await service.close();
    const failure = await store.register("run", "s", "a", "x").catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ArtifactError);
    expect(failure).toMatchObject({ code: "closed" });
  });

  it("rejects a bad namespace and unknown options", () => {
    const service = new MemoryArtifactService();
    for (const options of [{ namespace: "" }, { namespace: "a\0" }, { bound: {} }]) {
      expect(() => new ArtifactServiceRunStore(service, options as object)).toThrow(
        expect.objectContaining({ code: "invalid_argument" }),
      );
    }
  });
});
