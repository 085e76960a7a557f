import { readdir, stat, unlink } from "node:fs/promises";
import { join } from "node:path";
import { isArtifactError, type Scope, sha256Hex, type UploadOptions } from "@artifact-kit/core";
import { afterEach, describe, expect, it } from "vitest";
import { FsArtifactService, fsArtifactPaths } from "../src/index.js";
import { codeOf, tempService } from "./helpers.js";
import { startChild, walk } from "./processes.js";

const SCOPE: Scope = { kind: "user", app: "keyed", user: "u" };
const bytes = (text: string) => new TextEncoder().encode(text);

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function fresh() {
  const temp = await tempService({}, "keys");
  cleanups.push(temp.cleanup);
  return temp;
}

/** The error a call fails with (an ArtifactError), or a test failure when it succeeds. */
async function failure(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    if (isArtifactError(error)) return error;
    throw error;
  }
  throw new Error("expected the call to fail");
}

async function upload(
  service: FsArtifactService,
  name: string,
  data: Uint8Array,
  key: string,
  options: UploadOptions = {},
) {
  const sink = await service.openUpload(SCOPE, name, { ...options, idempotencyKey: key });
  await sink.write(data);
  return sink.finish();
}

describe("idempotency keys", () => {
  it("a retry with the same key and payload returns the first version and writes nothing", async () => {
    const { service } = await fresh();
    const first = await service.put(SCOPE, "r", bytes("one"), {
      idempotencyKey: "k",
      metadata: { a: [1, { b: null }] },
      mimeType: "text/plain",
    });
    expect(first).toMatchObject({ version: 1, idempotencyKey: "k" });
    const retry = await service.put(SCOPE, "r", bytes("one"), {
      idempotencyKey: "k",
      metadata: { a: [1, { b: null }] },
      mimeType: "text/plain",
    });
    expect(retry).toEqual(first);
    // An upload retry of a put (and the other way round) is the same write.
    const described = { metadata: { a: [1, { b: null }] }, mimeType: "text/plain" };
    expect(await upload(service, "r", bytes("one"), "k", described)).toEqual(first);
    expect(await codeOf(upload(service, "r", bytes("one"), "k"))).toBe("invalid_argument");
    const items = (await service.listVersions(SCOPE, "r")).items;
    expect(items).toEqual([first]);
    expect((await service.get(SCOPE, "r")).idempotencyKey).toBe("k");
    // Without a key, or with another key, a put is a new version.
    expect((await service.put(SCOPE, "r", bytes("one"))).version).toBe(2);
    expect((await service.put(SCOPE, "r", bytes("one"), { idempotencyKey: "k2" })).version).toBe(3);
    // The same key under another name is another key.
    expect((await service.put(SCOPE, "other", bytes("one"), { idempotencyKey: "k" })).version).toBe(
      1,
    );
  });

  it("a different payload under a bound key is invalid_argument; a deleted one is not_found", async () => {
    const { service } = await fresh();
    await upload(service, "r", bytes("one"), "k");
    const before = (await service.listVersions(SCOPE, "r")).items;
    for (const options of [
      { idempotencyKey: "k" },
      { idempotencyKey: "k", metadata: { x: 1 } },
      { idempotencyKey: "k", mimeType: "text/csv" },
    ]) {
      const data = "metadata" in options || "mimeType" in options ? "one" : "two";
      const error = await failure(service.put(SCOPE, "r", bytes(data), options));
      expect(error.code).toBe("invalid_argument");
      expect(error.detail.field).toBe("idempotencyKey");
    }
    expect((await service.listVersions(SCOPE, "r")).items).toEqual(before);
    await service.delete(SCOPE, "r", 1);
    const deleted = await failure(service.put(SCOPE, "r", bytes("one"), { idempotencyKey: "k" }));
    expect(deleted.code).toBe("not_found");
    expect(deleted.detail.version).toBe(1);
    // The key stays bound after the delete: nothing was published again.
    expect((await service.listVersions(SCOPE, "r")).items).toEqual([]);
  });

  it("bindings survive reopening the store", async () => {
    const { service, root } = await fresh();
    const first = await service.put(SCOPE, "r", bytes("one"), { idempotencyKey: "k" });
    await service.close();
    const reopened = await FsArtifactService.open({ root });
    try {
      expect(await reopened.put(SCOPE, "r", bytes("one"), { idempotencyKey: "k" })).toEqual(first);
      expect(await codeOf(reopened.put(SCOPE, "r", bytes("x"), { idempotencyKey: "k" }))).toBe(
        "invalid_argument",
      );
    } finally {
      await reopened.close();
    }
  });

  it("concurrent puts and uploads with one key in one process publish one version", async () => {
    const { service } = await fresh();
    const data = bytes("same");
    const metas = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        i % 2
          ? upload(service, "r", data, "k")
          : service.put(SCOPE, "r", data, { idempotencyKey: "k" }),
      ),
    );
    const versions = new Set(metas.map((meta) => meta.version));
    expect(versions.size).toBe(1);
    expect((await service.listVersions(SCOPE, "r")).items.map((m) => m.version)).toEqual([
      ...versions,
    ]);
  });

  it("a binding whose publication was cut short is finished by the next retry", async () => {
    const { service, root } = await fresh();
    const first = await service.put(SCOPE, "r", bytes("one"), { idempotencyKey: "k" });
    // The state a crash between binding the key and linking the metadata leaves behind.
    const paths = fsArtifactPaths(root, SCOPE, "r", 1);
    await unlink(paths.metadata);
    expect(await codeOf(service.get(SCOPE, "r"))).toBe("not_found");
    expect(await service.put(SCOPE, "r", bytes("one"), { idempotencyKey: "k" })).toEqual(first);
    expect((await service.get(SCOPE, "r")).data).toEqual(bytes("one"));
  });

  it("repair keeps a cut-short binding's version for its key's retry, and publishes nothing", async () => {
    const { service, root } = await fresh();
    const first = await service.put(SCOPE, "r", bytes("one"), { idempotencyKey: "k" });
    await service.put(SCOPE, "r", bytes("plain"));
    const paths = (version: number) => fsArtifactPaths(root, SCOPE, "r", version);
    await unlink(paths(1).metadata);
    await unlink(paths(2).metadata);
    const report = await service.repair({ minAgeMs: 0 });
    // The keyed version stays whole and unpublished (a put nobody was told of); the plain
    // unpublished version file is emptied (its reservation stays).
    expect(report).toMatchObject({ awaitingRetry: 1, removed: 1, complete: true });
    expect(await codeOf(service.head(SCOPE, "r"))).toBe("not_found");
    expect((await readdir(paths(1).nameDir)).sort()).toEqual(["1.r", "2.r"]);
    // Not emptied: the version file still carries its record and payload.
    expect((await stat(paths(1).reservation)).size).toBeGreaterThan(first.size);
    expect((await stat(paths(2).reservation)).size).toBe(0);
    expect(await service.repair({ minAgeMs: 0 })).toMatchObject({ awaitingRetry: 1, removed: 0 });
    // The retry finishes it.
    expect(await service.put(SCOPE, "r", bytes("one"), { idempotencyKey: "k" })).toEqual(first);
    expect((await service.get(SCOPE, "r")).data).toEqual(bytes("one"));
    expect(await service.repair({ minAgeMs: 0 })).toMatchObject({ awaitingRetry: 0, removed: 0 });
  });

  it("the key is kept under the scope's keys directory, by digest, never as a user string", async () => {
    const { service, root } = await fresh();
    const key = "../../../etc/passwd\u0000".slice(0, -1);
    await service.put(SCOPE, "r", bytes("one"), { idempotencyKey: key });
    const keyFiles = (await walk(root)).filter(
      (e) => e.path.includes("/keys/") && e.kind === "file",
    );
    expect(keyFiles.map((e) => e.path.split("/").slice(2).join("/"))).toEqual([
      `keys/${sha256Hex("r")}/${sha256Hex(key)}.json`,
    ]);
  });

  it("concurrent keyed puts from several OS processes on one root publish one version", async () => {
    const { root } = await fresh();
    const CHILDREN = 4;
    const ATTEMPTS = 4;
    const children = Array.from({ length: CHILDREN }, () =>
      startChild("keyed-child.mjs", [root, String(ATTEMPTS)]),
    );
    await Promise.all(children.map((child) => child.waitFor("ready")));
    for (const child of children) child.process.stdin?.write("go\n");
    const results = await Promise.all(children.map((child) => child.done));
    const reported = results.flatMap(({ lines, code }) => {
      expect(code).toBe(0);
      return lines.filter((line) => line.startsWith("{")).map((line) => JSON.parse(line));
    });
    expect(reported).toHaveLength(CHILDREN * ATTEMPTS);
    const versions = new Set(reported.map((r) => r.version));
    expect(versions.size).toBe(1);
    expect(reported.every((r) => r.key === "call-1")).toBe(true);
    const service = await FsArtifactService.open({ root });
    try {
      const scope: Scope = { kind: "user", app: "keyed", user: "u" };
      expect((await service.listVersions(scope, "report")).items.map((m) => m.version)).toEqual([
        ...versions,
      ]);
      // Losers burned their reserved versions and left no payload or staging file behind:
      // every reservation but the published version's is empty.
      const files = (await walk(root)).filter((e) => e.kind === "file");
      expect(files.filter((e) => /staging\/|\/\d+\.d$/.test(e.path))).toEqual([]);
      const published = fsArtifactPaths(root, scope, "report", [...versions][0] as number);
      for (const file of files.filter((e) => /\/\d+\.r$/.test(e.path))) {
        const size = (await stat(join(root, file.path))).size;
        expect(size > 0).toBe(join(root, file.path) === published.reservation);
      }
    } finally {
      await service.close();
    }
  });
});
