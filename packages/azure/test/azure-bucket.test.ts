import { randomUUID } from "node:crypto";
import { Deadline } from "@artifact-kit/core";
import { failure } from "@artifact-kit/fault-trials";
import type { ContainerClient } from "@azure/storage-blob";
import { beforeAll, describe, expect, it } from "vitest";
import { AzureBucket } from "../src/azure-bucket.js";
import { containerClient, freshContainer } from "./support/server.js";

const bytes = (text: string) => new TextEncoder().encode(text);
const text = (data: Uint8Array | undefined) => new TextDecoder().decode(data);
const none = Deadline.none;
const commit = { commit: true };

describe("AzureBucket against Azurite", () => {
  let container: ContainerClient;
  let bucket: AzureBucket;
  beforeAll(async () => {
    container = await freshContainer();
    bucket = new AzureBucket(container, 4, 4);
  });
  const key = () => `k/${randomUUID()}`;

  it("a create-only put creates once; a second is refused and changes nothing", async () => {
    const at = key();
    expect(await bucket.createOnly(none, { key: at, body: bytes("first") }, commit)).toBe(
      "created",
    );
    expect(await bucket.createOnly(none, { key: at, body: bytes("second") }, commit)).toBe(
      "exists",
    );
    const stored = await bucket.get(none, at);
    expect(text(stored?.bytes)).toBe("first");
    expect(stored?.objectSize).toBe(5);
    // A plain Uint8Array, as every adapter's get answers (not the SDK's Buffer).
    expect(Object.getPrototypeOf(stored?.bytes)).toBe(Uint8Array.prototype);
  });

  it("a create-only put over a failed upload's uncommitted blocks creates the blob", async () => {
    const at = key();
    // A streamed upload's head block, staged at the key; its Put Block List never landed.
    await bucket.blob(at).stageBlock(Buffer.from("block-000000").toString("base64"), bytes("x"), 1);
    expect(await bucket.head(none, at)).toBeUndefined();
    const metadata = { "artifact-kit-request": "r-3" };
    expect(await bucket.createOnly(none, { key: at, body: bytes("put"), metadata }, commit)).toBe(
      "created",
    );
    expect(text((await bucket.get(none, at))?.bytes)).toBe("put");
    expect((await bucket.head(none, at))?.metadata).toEqual(metadata);
    // Still create-only: a second put is refused, over committed data.
    expect(await bucket.createOnly(none, { key: at, body: bytes("again") }, commit)).toBe("exists");
    expect(text((await bucket.get(none, at))?.bytes)).toBe("put");
  });

  it("the protocol's metadata names and Unicode values survive Azure's metadata rules", async () => {
    const at = key();
    const metadata = {
      "artifact-kit-request": "r-1",
      "artifact-kit-manifest": '{"name":"é ☃ 100%"}',
    };
    await bucket.createOnly(none, { key: at, body: bytes("x"), metadata }, commit);
    expect(await bucket.head(none, at)).toMatchObject({ key: at, size: 1, metadata });
    const page = await bucket.list(none, { prefix: at, maxKeys: 10 });
    expect(page.objects.map((object) => object.metadata)).toEqual([metadata]);
    expect(await bucket.head(none, key())).toBeUndefined();
  });

  it("leaves out the manifest copy, never another entry, when metadata would pass 8 KiB", async () => {
    const at = key();
    const metadata = { "artifact-kit-request": "r-2", "artifact-kit-manifest": "☃".repeat(2000) };
    await bucket.createOnly(none, { key: at, body: bytes("x"), metadata }, commit);
    expect((await bucket.head(none, at))?.metadata).toEqual({ "artifact-kit-request": "r-2" });
  });

  it("ranged and suffix gets return the window and the whole size; missing is undefined", async () => {
    const at = key();
    await bucket.createOnly(none, { key: at, body: bytes("0123456789") }, commit);
    const window = await bucket.get(none, at, { start: 2, end: 5 });
    expect(text(window?.bytes)).toBe("2345");
    expect(window?.objectSize).toBe(10);
    expect(text((await bucket.get(none, at, { suffix: 3 }))?.bytes)).toBe("789");
    expect(text((await bucket.get(none, at, { suffix: 30 }))?.bytes)).toBe("0123456789");
    expect(await bucket.get(none, at, { start: 20, end: 30 })).toBeUndefined();
    expect(await bucket.get(none, key())).toBeUndefined();
    const streamed: Uint8Array[] = [];
    for await (const chunk of bucket.readRange(none, at, 3, 6)) streamed.push(chunk);
    expect(text(Buffer.concat(streamed))).toBe("345");
    const missing = async () => {
      for await (const _ of bucket.readRange(none, key(), 0, 1)) return;
    };
    expect((await failure(missing())).code).toBe("not_found");
  });

  it("a delete with a match removes only that incarnation", async () => {
    const at = key();
    await bucket.createOnly(none, { key: at, body: bytes("v") }, commit);
    const match = (await bucket.head(none, at))?.match;
    expect(match).toBeDefined();
    await bucket.delete(none, { key: at, match: '"0x8D0000000000000"' });
    expect(await bucket.get(none, at)).toBeDefined();
    await bucket.delete(none, { key: at, ...(match ? { match } : {}) });
    expect(await bucket.get(none, at)).toBeUndefined();
    // Gone already: still no error (Azure's answer cannot say who deleted: tellsDeletes).
    expect(await bucket.delete(none, { key: at })).toBe(true);
    expect(bucket.tellsDeletes).toBe(false);
  });

  it("lists in key order within startAfter and endBefore, in pages joined by the cursor", async () => {
    const prefix = `list-${randomUUID()}/`;
    const names = ["a/1", "a/2", "b", "c/1", "d", "e"];
    for (const name of names)
      await bucket.createOnly(none, { key: prefix + name, body: bytes(name) }, commit);
    const all = async (request: { startAfter?: string; endBefore?: string; maxKeys: number }) => {
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await bucket.list(none, { prefix, ...request, ...(cursor ? { cursor } : {}) });
        expect(page.objects.length).toBeLessThanOrEqual(request.maxKeys);
        seen.push(...page.objects.map((object) => object.key.slice(prefix.length)));
        cursor = page.cursor;
      } while (cursor);
      return seen;
    };
    expect(await all({ maxKeys: 2 })).toEqual(names);
    expect(await all({ maxKeys: 2, startAfter: `${prefix}a/2` })).toEqual(["b", "c/1", "d", "e"]);
    expect(await all({ maxKeys: 2, endBefore: `${prefix}c/1` })).toEqual(["a/1", "a/2", "b"]);
    const grouped = await bucket.list(none, { prefix, delimiter: "/", maxKeys: 100 });
    expect(grouped.prefixes).toEqual([`${prefix}a/`, `${prefix}c/`]);
    expect(grouped.objects.map((object) => object.key)).toEqual(
      ["b", "d", "e"].map((n) => prefix + n),
    );
    const after = await bucket.list(none, {
      prefix,
      delimiter: "/",
      startAfter: `${prefix}a/2`,
      maxKeys: 100,
    });
    expect(after.prefixes).toEqual([`${prefix}c/`]);
  });

  it("a streamed upload stages blocks and publishes head + data create-only, once", async () => {
    const at = key();
    const staging = bucket.openStaging(none, `u/${randomUUID()}`);
    for (const chunk of ["hello", " ", "world", "!"]) await staging.write(bytes(chunk));
    await staging.seal(none);
    const target = {
      key: at,
      head: bytes("HEAD\n"),
      tail: bytes("\nTAIL"),
      metadata: { "artifact-kit-request": "r" },
    };
    expect(await staging.complete(none, target)).toBe("created");
    expect(text((await bucket.get(none, at))?.bytes)).toBe("HEAD\nhello world!\nTAIL");
    expect((await bucket.head(none, at))?.metadata).toEqual({ "artifact-kit-request": "r" });
    await staging.discard();
    const again = bucket.openStaging(none, `u/${randomUUID()}`);
    await again.write(bytes("other data"));
    await again.seal(none);
    expect(await again.complete(none, target)).toBe("exists");
    await again.discard();
    expect(text((await bucket.get(none, at))?.bytes)).toBe("HEAD\nhello world!\nTAIL");
    // Nothing staged is left behind.
    expect((await bucket.list(none, { prefix: "u/", maxKeys: 100 })).objects).toEqual([]);
  });

  it("a streamed upload smaller than a block is one Put Blob, create-only", async () => {
    const small = new AzureBucket(container, 4, 1024);
    const at = key();
    const staging = small.openStaging(none, `u/${randomUUID()}`);
    await staging.write(bytes("tiny"));
    await staging.seal(none);
    expect(await staging.complete(none, { key: at, head: bytes("H") })).toBe("created");
    expect(text((await small.get(none, at))?.bytes)).toBe("Htiny");
  });

  it("a missing container is unavailable, with the service's error as the cause", async () => {
    const gone = new AzureBucket(containerClient(`ak-missing-${randomUUID()}`), 1, 4);
    const refused = await failure(gone.createOnly(none, { key: "k", body: bytes("x") }, commit));
    expect(refused.code).toBe("unavailable");
    expect(refused.cause).toMatchObject({ statusCode: 404 });
    expect((await failure(gone.list(none, { prefix: "", maxKeys: 1 }))).code).toBe("unavailable");
  });

  it("a passed deadline or an aborted signal fails before any request", async () => {
    const controller = new AbortController();
    controller.abort();
    const aborted = Deadline.start({ signal: controller.signal });
    expect((await failure(bucket.get(aborted, key()))).code).toBe("aborted");
    const at = key();
    expect(
      (await failure(bucket.createOnly(aborted, { key: at, body: bytes("x") }, commit))).code,
    ).toBe("aborted");
    expect(await bucket.get(none, at)).toBeUndefined();
  });
});
