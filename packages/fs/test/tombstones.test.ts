import { link, readdir, rename, stat, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type Scope, sha256Hex } from "@artifact-kit/core";
import { afterEach, describe, expect, it } from "vitest";
import { type FsArtifactService, fsArtifactPaths } from "../src/index.js";
import { codeOf, tempService } from "./helpers.js";

// A delete decides by renaming a version's metadata to its tombstone (<v>.t); what a crash
// leaves after that is a deleted version, never one to finish. These are the states such
// crashes leave, made by hand; mixed-crash.test.ts makes them with SIGKILL.

const SCOPE: Scope = { kind: "user", app: "tombstones", user: "u" };
const bytes = (text: string) => new TextEncoder().encode(text);

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function fresh() {
  const temp = await tempService({}, "tombstones");
  cleanups.push(temp.cleanup);
  const paths = (version: number) => fsArtifactPaths(temp.root, SCOPE, "r", version);
  const binding = (key: string) =>
    join(
      paths(1).nameDir.replace(/\/names\/(?=[0-9a-f]{64}$)/, "/keys/"),
      `${sha256Hex(key)}.json`,
    );
  return { ...temp, paths, binding };
}

/** Every read of version `version` of "r" answers not_found, and no listing shows it. */
async function expectDeleted(service: FsArtifactService, version: number) {
  expect(await codeOf(service.get(SCOPE, "r", { version }))).toBe("not_found");
  expect(await codeOf(service.head(SCOPE, "r", { version }))).toBe("not_found");
  expect(await codeOf(service.openDownload(SCOPE, "r", { version }))).toBe("not_found");
  const listed = (await service.listVersions(SCOPE, "r")).items.map((meta) => meta.version);
  expect(listed).not.toContain(version);
  expect((await service.list(SCOPE)).map((meta) => meta.version)).not.toContain(version);
}

describe("deleted stays deleted", () => {
  it("a keyed version whose delete was cut before its payload went: retry and repair", async () => {
    const { service, paths } = await fresh();
    await service.put(SCOPE, "r", bytes("one"), { idempotencyKey: "k" });
    const second = await service.put(SCOPE, "r", bytes("two"), { idempotencyKey: "k2" });
    // The delete's deciding step done, its payload's removal not.
    await rename(paths(1).metadata, paths(1).tombstone);
    await expectDeleted(service, 1);
    expect(await codeOf(service.put(SCOPE, "r", bytes("one"), { idempotencyKey: "k" }))).toBe(
      "not_found",
    );
    const report = await service.repair({ minAgeMs: 60_000 });
    // Its payload goes whatever its age; nothing is finished.
    expect(report).toMatchObject({ awaitingRetry: 0, removed: 1, corrupt: 0, complete: true });
    await expectDeleted(service, 1);
    expect(await codeOf(service.put(SCOPE, "r", bytes("one"), { idempotencyKey: "k" }))).toBe(
      "not_found",
    );
    expect((await readdir(paths(1).nameDir)).sort()).toEqual(["1.r", "1.t", "2.m", "2.r"]);
    // Its reservation and tombstone are files of their own now, empty.
    expect((await stat(paths(1).reservation)).size).toBe(0);
    expect((await stat(paths(1).tombstone)).size).toBe(0);
    expect(await service.head(SCOPE, "r")).toEqual(second);
  });

  it("metadata linked back beside a tombstone (a finishing put that crashed) is never read", async () => {
    const { service, paths, binding } = await fresh();
    await service.put(SCOPE, "r", bytes("one"), { idempotencyKey: "k" });
    await service.delete(SCOPE, "r", 1);
    expect((await readdir(paths(1).nameDir)).sort()).toEqual(["1.r", "1.t"]);
    // A put finishing the key's binding linked it back after the delete's rename, with the
    // payload still there, and was killed before it could look for the tombstone.
    await writeFile(paths(1).data, "one");
    await link(binding("k"), paths(1).metadata);
    await service.put(SCOPE, "r", bytes("one!"), { idempotencyKey: "other" });
    await expectDeleted(service, 1);
    expect((await service.head(SCOPE, "r")).version).toBe(2);
    expect(await codeOf(service.put(SCOPE, "r", bytes("one"), { idempotencyKey: "k" }))).toBe(
      "not_found",
    );
    expect(await codeOf(service.delete(SCOPE, "r", 1))).toBe("not_found");
    expect((await readdir(paths(1).nameDir)).sort()).not.toContain("1.m");
  });

  it("repair removes a late link beside a tombstone", async () => {
    const { service, paths, binding } = await fresh();
    await service.put(SCOPE, "r", bytes("one"), { idempotencyKey: "k" });
    await service.delete(SCOPE, "r", 1);
    await link(binding("k"), paths(1).metadata);
    const report = await service.repair({ minAgeMs: 0 });
    expect(report).toMatchObject({ awaitingRetry: 0, removed: 1, corrupt: 0, complete: true });
    expect((await readdir(paths(1).nameDir)).sort()).toEqual(["1.r", "1.t"]);
  });

  it("a put cut short after binding its key (no tombstone) is kept for its retry", async () => {
    const { service, paths } = await fresh();
    const first = await service.put(SCOPE, "r", bytes("one"), { idempotencyKey: "k" });
    await unlink(paths(1).metadata);
    const report = await service.repair({ minAgeMs: 0 });
    expect(report).toMatchObject({ awaitingRetry: 1, removed: 0, corrupt: 0 });
    expect(await codeOf(service.head(SCOPE, "r"))).toBe("not_found");
    expect(await service.put(SCOPE, "r", bytes("one"), { idempotencyKey: "k" })).toEqual(first);
  });

  it("deletes of every kind leave a tombstone and the reservation of each version", async () => {
    const { service, paths } = await fresh();
    for (let i = 0; i < 4; i++) await service.put(SCOPE, "r", bytes(`v${i}`));
    await service.delete(SCOPE, "r", 2);
    await service.delete(SCOPE, "r", "latest");
    await service.delete(SCOPE, "r", "all");
    expect((await readdir(paths(1).nameDir)).sort()).toEqual(
      ["1.r", "1.t", "2.r", "2.t", "3.r", "3.t", "4.r", "4.t"].sort(),
    );
    expect(await codeOf(service.delete(SCOPE, "r", "all"))).toBe("not_found");
    expect((await service.put(SCOPE, "r", bytes("v5"))).version).toBe(5);
  });
});
