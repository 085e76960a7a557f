import { execFileSync } from "node:child_process";
import { readdir, stat } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { type DownloadOptions, type Scope, sha256Hex } from "@artifact-kit/core";
import { afterEach, describe, expect, it } from "vitest";
import { FsArtifactService, fsArtifactPaths } from "../src/index.js";
import { codeOf, downloadAll, tempRoot } from "./helpers.js";

// A store written by the release before version files (commit 5f71410, the fs adapter's
// dist), kept as a tarball: the record alone in <v>.m, the payload in <v>.d, the block
// digests in <v>.r. It was made by, with that build:
//
//   const service = await FsArtifactService.open({ root });
//   const scope = { kind: "user", app: "legacy", user: "u" };
//   put(scope, "report.txt", pattern(4096, 1), { mimeType: "text/plain", metadata: { k: "v" } })
//   put(scope, "report.txt", new Uint8Array(0))
//   put(scope, "report.txt", pattern(1536 * 1024, 3))
//   put(scope, "keyed.bin", pattern(1000, 4), { idempotencyKey: "k1" })
//   put(scope, "deleted.txt", pattern(10, 5)); put(scope, "deleted.txt", pattern(20, 6))
//   delete(scope, "deleted.txt", 1)
//   openUpload(scope, "uploaded.bin"): write(pattern(100 * 1024, 7)), finish()

const FIXTURE = fileURLToPath(new URL("./fixtures/legacy-store.tar.gz", import.meta.url));
const SCOPE: Scope = { kind: "user", app: "legacy", user: "u" };
const KiB = 1024;

const pattern = (size: number, seed: number) =>
  Uint8Array.from({ length: size }, (_, i) => (i * 31 + seed) % 251);

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function legacyStore(): Promise<{ root: string; service: FsArtifactService }> {
  const temp = await tempRoot("legacy");
  execFileSync("tar", ["xzf", FIXTURE, "-C", temp.root]);
  const service = await FsArtifactService.open({ root: temp.root });
  cleanups.push(async () => {
    await service.close();
    await temp.cleanup();
  });
  return { root: temp.root, service };
}

async function download(service: FsArtifactService, name: string, options: DownloadOptions) {
  return (await downloadAll(service, SCOPE, name, options)).bytes;
}

/** Every version the fixture holds reads, heads, lists and downloads as it was written. */
async function expectWritten(service: FsArtifactService): Promise<void> {
  const report = [pattern(4 * KiB, 1), new Uint8Array(0), pattern(1536 * KiB, 3)];
  for (const [i, data] of report.entries()) {
    const got = await service.get(SCOPE, "report.txt", { version: i + 1 });
    expect(Buffer.from(got.data).equals(Buffer.from(data))).toBe(true);
    expect(got.sha256).toBe(sha256Hex(data));
  }
  expect(await service.head(SCOPE, "report.txt", { version: 1 })).toMatchObject({
    mimeType: "text/plain",
    metadata: { k: "v" },
    size: 4 * KiB,
  });
  // Across the block boundary: the block digests are the reservation's.
  const range = { offset: 1024 * KiB - 10, length: 100 };
  expect(
    (await download(service, "report.txt", { version: 3, range })).equals(
      Buffer.from(report[2]?.subarray(range.offset, range.offset + range.length) ?? []),
    ),
  ).toBe(true);
  expect((await service.get(SCOPE, "uploaded.bin")).data).toEqual(pattern(100 * KiB, 7));
  expect((await service.get(SCOPE, "deleted.txt")).data).toEqual(pattern(20, 6));
  expect(await codeOf(service.get(SCOPE, "deleted.txt", { version: 1 }))).toBe("not_found");
  expect((await service.listVersions(SCOPE, "deleted.txt")).items.map((m) => m.version)).toEqual([
    2,
  ]);
  expect([...(await service.listNames(SCOPE)).items].sort()).toEqual([
    "deleted.txt",
    "keyed.bin",
    "report.txt",
    "uploaded.bin",
  ]);
}

describe("a store written before version files", () => {
  it("opens as it is: every version reads, downloads and lists as written", async () => {
    const { service } = await legacyStore();
    await expectWritten(service);
  });

  it("takes new versions as version files beside the old ones, deletes either, and repairs clean", async () => {
    const { root, service } = await legacyStore();
    const fourth = pattern(3 * KiB, 9);
    expect((await service.put(SCOPE, "report.txt", fourth)).version).toBe(4);
    const paths = fsArtifactPaths(root, SCOPE, "report.txt", 4);
    expect((await stat(paths.metadata)).ino).toBe((await stat(paths.reservation)).ino);
    expect((await service.get(SCOPE, "report.txt")).data).toEqual(fourth);
    expect((await service.listVersions(SCOPE, "report.txt")).items.map((m) => m.version)).toEqual([
      1, 2, 3, 4,
    ]);
    // A keyed retry of the old binding answers from it; another payload is refused.
    const retried = await service.put(SCOPE, "keyed.bin", pattern(1000, 4), {
      idempotencyKey: "k1",
    });
    expect(retried.version).toBe(1);
    expect(
      await codeOf(service.put(SCOPE, "keyed.bin", pattern(1000, 5), { idempotencyKey: "k1" })),
    ).toBe("invalid_argument");
    // Deleting an old version takes its payload file; the versions above stay.
    await service.delete(SCOPE, "report.txt", 1);
    expect(await codeOf(service.get(SCOPE, "report.txt", { version: 1 }))).toBe("not_found");
    expect((await readdir(paths.nameDir)).filter((file) => file.startsWith("1."))).toEqual([
      "1.r",
      "1.t",
    ]);
    await service.delete(SCOPE, "keyed.bin", 1);
    expect(
      await codeOf(service.put(SCOPE, "keyed.bin", pattern(1000, 4), { idempotencyKey: "k1" })),
    ).toBe("not_found");
    const repaired = await service.repair({ minAgeMs: 0 });
    expect(repaired).toMatchObject({ corrupt: 0, complete: true, awaitingRetry: 0 });
    const reopened = await FsArtifactService.open({ root });
    try {
      expect((await reopened.get(SCOPE, "report.txt", { version: 3 })).size).toBe(1536 * KiB);
      expect((await reopened.get(SCOPE, "report.txt")).data).toEqual(fourth);
      expect((await reopened.put(SCOPE, "report.txt", fourth)).version).toBe(5);
    } finally {
      await reopened.close();
    }
  });

  it("reads the same after a repair and a reopen", async () => {
    const { root, service } = await legacyStore();
    expect(await service.repair({ minAgeMs: 0 })).toMatchObject({ corrupt: 0, removed: 0 });
    const reopened = await FsArtifactService.open({ root });
    try {
      await expectWritten(reopened);
    } finally {
      await reopened.close();
    }
  });
});
