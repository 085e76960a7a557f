import { ArtifactError, type Scope } from "@artifact-kit/core";
import type { Bucket } from "@google-cloud/storage";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { GcsArtifactService } from "../src/index.js";
import { endpoint, freshBucket, newStorage } from "./support/emulator.js";
import {
  type FaultProxy,
  type SeenRequest,
  startFaultProxy,
  UNAVAILABLE,
} from "./support/fault-proxy.js";

const scope: Scope = { kind: "user", app: "app", user: "u" };
const bytes = (text: string) => new TextEncoder().encode(text);
const publish = (r: SeenRequest) => r.url.startsWith("/upload/") && r.url.includes("/n/");

async function refusal(promise: Promise<unknown>): Promise<ArtifactError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ArtifactError);
  return error as ArtifactError;
}

describe("idempotency keys on GCS", () => {
  let proxy: FaultProxy;
  let bucket: Bucket;
  let service: GcsArtifactService;
  const instance = () => new GcsArtifactService({ bucket, prefix: "p/" });
  const versions = async (name: string) =>
    (await instance().listVersions(scope, name)).items.map((meta) => meta.version);

  beforeAll(async () => {
    proxy = await startFaultProxy(endpoint());
  });
  afterAll(() => proxy.close());
  beforeEach(async () => {
    bucket = await freshBucket();
    service = instance();
  });
  afterEach(() => proxy.clearFaults());

  it("a retry, from this or another instance, returns the first version and writes nothing", async () => {
    const first = await service.put(scope, "r", bytes("x"), { idempotencyKey: "k" });
    expect(first.idempotencyKey).toBe("k");
    expect(await service.put(scope, "r", bytes("x"), { idempotencyKey: "k" })).toEqual(first);
    expect(await instance().put(scope, "r", bytes("x"), { idempotencyKey: "k" })).toEqual(first);
    expect(await instance().head(scope, "r")).toEqual(first);
    expect(await versions("r")).toEqual([1]);
  });

  it("a different payload is invalid_argument; a deleted version is not_found, never rewritten", async () => {
    await service.put(scope, "r", bytes("x"), { idempotencyKey: "k", mimeType: "text/plain" });
    const other = await refusal(service.put(scope, "r", bytes("x"), { idempotencyKey: "k" }));
    expect([other.code, other.detail.field]).toEqual(["invalid_argument", "idempotencyKey"]);
    await service.delete(scope, "r", "all");
    const gone = await refusal(
      instance().put(scope, "r", bytes("x"), { idempotencyKey: "k", mimeType: "text/plain" }),
    );
    expect([gone.code, gone.detail.version]).toEqual(["not_found", 1]);
    expect(await versions("r")).toEqual([]);
    expect((await service.put(scope, "r", bytes("x"))).version).toBe(2);
  });

  it("concurrent puts with one key from several instances publish one version", async () => {
    const puts = Array.from({ length: 8 }, () =>
      instance().put(scope, "r", bytes("same"), { idempotencyKey: "race" }),
    );
    const replies = await Promise.all(puts);
    expect(new Set(replies.map((meta) => meta.version)).size).toBe(1);
    expect(await versions("r")).toEqual([replies[0]?.version]);
  });

  it("a put whose publication failed is finished by its retry, in the version it was bound to", async () => {
    const flaky = new GcsArtifactService({
      bucket: newStorage(proxy.endpoint).bucket(bucket.name),
      prefix: "p/",
    });
    await flaky.put(scope, "r", bytes("v1"));
    proxy.inject(publish, UNAVAILABLE, 100);
    const lost = await refusal(flaky.put(scope, "r", bytes("v2"), { idempotencyKey: "k" }));
    expect(lost.code).toBe("unavailable");
    proxy.clearFaults();
    expect(await versions("r")).toEqual([1]);
    const retried = await flaky.put(scope, "r", bytes("v2"), { idempotencyKey: "k" });
    expect(retried.version).toBe(2);
    expect(await versions("r")).toEqual([1, 2]);
    expect(new TextDecoder().decode((await service.get(scope, "r")).data)).toBe("v2");
  });

  it("an upload honours the key a put bound", async () => {
    const first = await service.put(scope, "r", bytes("abc"), { idempotencyKey: "k" });
    const upload = await instance().openUpload(scope, "r", { idempotencyKey: "k" });
    await upload.write(bytes("ab"));
    await upload.write(bytes("c"));
    expect(await upload.finish()).toEqual(first);
    expect(await versions("r")).toEqual([1]);
  });
});
