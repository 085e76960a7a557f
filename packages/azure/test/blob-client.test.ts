import { randomUUID } from "node:crypto";
import { Deadline } from "@artifact-kit/core";
import type { ContainerClient } from "@azure/storage-blob";
import { beforeAll, describe, expect, it } from "vitest";
import { BlobClient } from "../src/blob-client.js";
import { failure } from "./support/failure.js";
import { containerClient, freshContainer } from "./support/server.js";

const bytes = (text: string) => new TextEncoder().encode(text);
const text = (data: Uint8Array | undefined) => new TextDecoder().decode(data);
const none = Deadline.none;
const commit = { commit: true };

describe("BlobClient against Azurite", () => {
  let container: ContainerClient;
  let client: BlobClient;
  beforeAll(async () => {
    container = await freshContainer();
    client = new BlobClient(container, 4);
  });
  const key = () => `k/${randomUUID()}`;

  it("a create-only put creates once; a second is refused and changes nothing", async () => {
    const at = key();
    expect(await client.createOnly(none, at, bytes("first"), commit)).toBe("created");
    expect(await client.createOnly(none, at, bytes("second"), commit)).toBe("exists");
    const stored = await client.get(none, at);
    expect(text(stored?.bytes)).toBe("first");
    expect(stored?.blobSize).toBe(5);
  });

  it("metadata travels with the create-only write and comes back on get and stat", async () => {
    const at = key();
    await client.createOnly(none, at, bytes("x"), { commit: false, metadata: { writer: "w-1" } });
    expect((await client.get(none, at))?.metadata).toEqual({ writer: "w-1" });
    expect(await client.stat(none, at)).toMatchObject({ size: 1, metadata: { writer: "w-1" } });
    expect(await client.stat(none, key())).toBeUndefined();
  });

  it("a ranged get returns the window and the whole blob's size; a missing blob is undefined", async () => {
    const at = key();
    await client.createOnly(none, at, bytes("0123456789"), commit);
    const window = await client.get(none, at, { start: 2, end: 5 });
    expect(text(window?.bytes)).toBe("2345");
    expect(window?.blobSize).toBe(10);
    expect(text((await client.get(none, at, { start: 7 }))?.bytes)).toBe("789");
    expect(await client.get(none, at, { start: 20, end: 30 })).toBeUndefined();
    expect(await client.get(none, key())).toBeUndefined();
    const streamed: Uint8Array[] = [];
    for await (const chunk of client.readRange(at, 3, 6, undefined)) streamed.push(chunk);
    expect(text(Buffer.concat(streamed))).toBe("345");
  });

  it("streaming a missing blob is not_found", async () => {
    const read = async () => {
      for await (const _ of client.readRange(key(), 0, 1, undefined)) return;
    };
    expect((await failure(read())).code).toBe("not_found");
  });

  it("a conditional delete removes only the ETag it names", async () => {
    const at = key();
    await client.createOnly(none, at, bytes("v"), commit);
    const { etag } = (await client.stat(none, at)) ?? { etag: "" };
    expect(await client.delete(none, at, '"0x8D0000000000000"')).toBe("changed");
    expect(await client.get(none, at)).toBeDefined();
    expect(await client.delete(none, at, etag)).toBe("deleted");
    expect(await client.get(none, at)).toBeUndefined();
    // Azurite answers a conditional delete of a missing blob 412, as HTTP allows: not "deleted".
    expect(["absent", "changed"]).toContain(await client.delete(none, at, etag));
    expect(await client.delete(none, at)).toBe("absent");
  });

  it("lists by prefix in pages joined by the continuation token, and groups at a delimiter", async () => {
    const prefix = `list-${randomUUID()}/`;
    const names = ["a/1", "a/2", "b", "c/1", "d"];
    for (const name of names) await client.createOnly(none, prefix + name, bytes(name), commit);
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await client.list(none, {
        prefix,
        maxKeys: 2,
        ...(token ? { continuationToken: token } : {}),
      });
      expect(page.blobs.length).toBeLessThanOrEqual(2);
      seen.push(...page.blobs.map((blob) => blob.key.slice(prefix.length)));
      expect(page.blobs.every((blob) => blob.size > 0 && blob.etag !== "")).toBe(true);
      token = page.nextToken;
      pages++;
    } while (token);
    expect(seen).toEqual(names);
    expect(pages).toBe(3);
    const grouped = await client.list(none, { prefix, delimiter: "/", maxKeys: 100 });
    expect(grouped.prefixes).toEqual([`${prefix}a/`, `${prefix}c/`]);
    expect(grouped.blobs.map((blob) => blob.key)).toEqual([`${prefix}b`, `${prefix}d`]);
    expect(grouped.nextToken).toBeUndefined();
  });

  it("staged blocks commit into one blob, create-only: a second commit is refused", async () => {
    const at = key();
    await client.stageBlock(none, at, 0, bytes("hello "));
    await client.stageBlock(none, at, 1, bytes("world"));
    expect(await client.get(none, at)).toBeUndefined(); // uncommitted blocks are invisible
    const options = { createOnly: true, commit: true, metadata: { writer: "w" } };
    expect(await client.commitBlocks(none, at, 2, options)).toBe("created");
    expect(text((await client.get(none, at))?.bytes)).toBe("hello world");
    expect((await client.stat(none, at))?.metadata).toEqual({ writer: "w" });
    await client.stageBlock(none, at, 0, bytes("other"));
    expect(await client.commitBlocks(none, at, 1, options)).toBe("exists");
    expect(text((await client.get(none, at))?.bytes)).toBe("hello world");
    // Unconditional, as for a blob the adapter owns alone (a staging blob).
    expect(await client.commitBlocks(none, at, 1, { ...options, createOnly: false })).toBe(
      "created",
    );
    expect(text((await client.get(none, at))?.bytes)).toBe("other");
  });

  it("a put block list over a blob that Put Blob created is refused too", async () => {
    const at = key();
    await client.createOnly(none, at, bytes("put"), commit);
    await client.stageBlock(none, at, 0, bytes("block"));
    expect(await client.commitBlocks(none, at, 1, { createOnly: true, commit: true })).toBe(
      "exists",
    );
    expect(text((await client.get(none, at))?.bytes)).toBe("put");
  });

  it("a missing container is unavailable, with the service's error as the cause", async () => {
    const gone = new BlobClient(containerClient(`ak-missing-${randomUUID()}`), 1);
    const refused = await failure(gone.createOnly(none, "k", bytes("x"), commit));
    expect(refused.code).toBe("unavailable");
    expect(refused.cause).toMatchObject({ statusCode: 404 });
    expect((await failure(gone.list(none, { prefix: "", maxKeys: 1 }))).code).toBe("unavailable");
  });

  it("a passed deadline or an aborted signal fails before any request", async () => {
    const controller = new AbortController();
    controller.abort();
    const aborted = Deadline.start({ signal: controller.signal });
    expect((await failure(client.get(aborted, key()))).code).toBe("aborted");
    const at = key();
    expect((await failure(client.createOnly(aborted, at, bytes("x"), commit))).code).toBe(
      "aborted",
    );
    expect(await client.get(none, at)).toBeUndefined();
  });
});
