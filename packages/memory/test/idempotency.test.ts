import { isArtifactError } from "@artifact-kit/core";
import { describe, expect, it } from "vitest";
import { MemoryArtifactService } from "../src/index.js";

const scope = { kind: "user", app: "a", user: "u" } as const;
const bytes = (text: string) => new TextEncoder().encode(text);

async function refusal(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected a refusal");
    },
    (error: unknown) => error,
  );
}

describe("idempotency keys", () => {
  it("a retry with the same key and payload returns the first version and writes nothing", async () => {
    const service = new MemoryArtifactService();
    const first = await service.put(scope, "r", bytes("x"), { idempotencyKey: "k1" });
    const again = await service.put(scope, "r", bytes("x"), { idempotencyKey: "k1" });
    expect(again).toEqual(first);
    expect(first.idempotencyKey).toBe("k1");
    expect((await service.listVersions(scope, "r")).items.map((m) => m.version)).toEqual([1]);
  });

  it("a different payload under a bound key is invalid_argument", async () => {
    const service = new MemoryArtifactService();
    await service.put(scope, "r", bytes("x"), { idempotencyKey: "k1" });
    const error = await refusal(service.put(scope, "r", bytes("y"), { idempotencyKey: "k1" }));
    expect(isArtifactError(error, "invalid_argument") && error.detail.field).toBe("idempotencyKey");
    const metadata = await refusal(
      service.put(scope, "r", bytes("x"), { idempotencyKey: "k1", metadata: { a: 1 } }),
    );
    expect(isArtifactError(metadata, "invalid_argument")).toBe(true);
  });

  it("a key whose version was deleted stays bound: not_found, no new version", async () => {
    const service = new MemoryArtifactService();
    await service.put(scope, "r", bytes("x"), { idempotencyKey: "k1" });
    await service.delete(scope, "r", "all");
    const error = await refusal(service.put(scope, "r", bytes("x"), { idempotencyKey: "k1" }));
    expect(isArtifactError(error, "not_found") && error.detail.version).toBe(1);
    const next = await service.put(scope, "r", bytes("x"), { idempotencyKey: "k2" });
    expect(next.version).toBe(2);
  });

  it("keys are per scope and name; an upload honours them too", async () => {
    const service = new MemoryArtifactService();
    const a = await service.put(scope, "r", bytes("x"), { idempotencyKey: "k" });
    const b = await service.put(scope, "s", bytes("x"), { idempotencyKey: "k" });
    expect([a.version, b.version]).toEqual([1, 1]);
    const upload = await service.openUpload(scope, "r", { idempotencyKey: "k" });
    await upload.write(bytes("x"));
    expect(await upload.finish()).toEqual(a);
  });

  it("rejects an empty or oversized key before writing", async () => {
    const service = new MemoryArtifactService();
    for (const key of ["", "k".repeat(257), "a\0b"]) {
      const error = await refusal(service.put(scope, "r", bytes("x"), { idempotencyKey: key }));
      expect(isArtifactError(error, "invalid_argument")).toBe(true);
    }
    expect((await service.listNames(scope)).items).toEqual([]);
  });
});
