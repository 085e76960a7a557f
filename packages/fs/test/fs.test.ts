import { readdir, rename, rm, stat, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { isArtifactError, type Scope, scopeDigest, sha256Hex } from "@artifact-kit/core";
import { afterEach, describe, expect, it } from "vitest";
import { FS_DEFAULTS, FsArtifactService, fsArtifactPaths, fsCeilings } from "../src/index.js";
import { codeOf, tempRoot, tempService, toLegacyLayout } from "./helpers.js";
import { walk } from "./processes.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

async function fresh(options: Parameters<typeof tempService>[0] = {}) {
  const temp = await tempService(options);
  cleanups.push(temp.cleanup);
  return temp;
}

async function capacityKind(promise: Promise<unknown>): Promise<unknown> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isArtifactError(error, "capacity_reached"), String(error)).toBe(true);
  return isArtifactError(error) ? error.detail.kind : undefined;
}

const scope = (n: number): Scope => ({ kind: "session", app: "fs", user: "u", session: `s${n}` });
const one = new Uint8Array([1]);

describe("configuration", () => {
  it("rejects unknown keys and bad values, before touching the filesystem", async () => {
    const { root, cleanup } = await tempRoot();
    cleanups.push(cleanup);
    const bad: Record<string, unknown>[] = [
      { root, maxScanEntry: 10 },
      { root, maxScanEntries: 2 },
      { root, maxScanEntries: 3.5 },
      { root, maxNamesPerScope: 0 },
      { root, maxNamesPerScope: 1_000_001 },
      { root, maxVersionsPerName: 0 },
      { root, maxVersionsPerName: 1_000_001 },
      { root, maxArtifactBytes: 0 },
      { root, maxPageLimit: -1 },
      { root, legacyListLimit: "10" },
      { root, recoveryGraceMs: -1 },
      { root, fileMode: 0o1777 },
      { root, fileMode: 0o400 },
      { root, dirMode: 0o600 },
    ];
    for (const options of bad) {
      expect(
        await codeOf(FsArtifactService.open(options as { root: string })),
        JSON.stringify(options),
      ).toBe("invalid_argument");
    }
    expect(await readdir(root)).toEqual([]);
  });

  it("reports durable, global capabilities with the lifetime ceilings", async () => {
    const { service } = await fresh({
      maxScanEntries: 100,
      maxNamesPerScope: 50,
      maxVersionsPerName: 40,
      maxArtifactBytes: 1000,
    });
    const capabilities = service.capabilities();
    expect(capabilities.durability).toBe("durable");
    expect(capabilities.quotas).toEqual({
      appliesTo: "global",
      bounds: {
        maxArtifactBytes: 1000,
        maxScopes: 50,
        maxNamesPerScope: 50,
        maxVersionsPerName: 40,
      },
    });
    expect(fsCeilings(FS_DEFAULTS.maxScanEntries)).toEqual({
      maxScopes: 5000,
      maxNamesPerScope: 100_000,
      maxVersionsPerName: 10_000,
    });
    // A store whose maxScanEntries was raised for more versions, when that set them, keeps them.
    expect(fsCeilings(60_000).maxVersionsPerName).toBe(20_000);
    const raised = await fresh({ maxScanEntries: 60_000 });
    expect(raised.service.capabilities().quotas.bounds.maxVersionsPerName).toBe(20_000);
    expect(Object.isFrozen(capabilities)).toBe(true);
  });

  it("creates files 0600 and directories 0700 by default, or the configured modes", async () => {
    for (const [options, file, dir] of [
      [{}, 0o600, 0o700],
      [{ fileMode: 0o640, dirMode: 0o750 }, 0o640, 0o750],
    ] as const) {
      const previous = process.umask(0);
      try {
        const { service, root } = await fresh(options);
        await service.put(scope(1), "x", one);
        const paths = fsArtifactPaths(root, scope(1), "x", 1);
        for (const path of [paths.metadata, paths.reservation, paths.nameSlot]) {
          expect((await stat(path)).mode & 0o777).toBe(file);
        }
        for (const path of [paths.nameDir, join(root, "scopes"), join(root, "staging")]) {
          expect((await stat(path)).mode & 0o777).toBe(dir);
        }
      } finally {
        process.umask(previous);
      }
    }
  });
});

describe("lifetime ceilings and tombstones", () => {
  // maxScanEntries 12: 6 scopes; and 6 names per scope, 4 versions per name.
  const SMALL = { maxScanEntries: 12, maxNamesPerScope: 6, maxVersionsPerName: 4 };

  it("versions: capacity_reached past the ceiling, still after delete and restart", async () => {
    const { service, root } = await fresh(SMALL);
    for (let i = 1; i <= 4; i++) expect((await service.put(scope(1), "v", one)).version).toBe(i);
    expect(await capacityKind(service.put(scope(1), "v", one))).toBe("version");
    await service.delete(scope(1), "v", "all");
    expect(await capacityKind(service.put(scope(1), "v", one))).toBe("version");
    await service.close();
    const reopened = await FsArtifactService.open({ root, ...SMALL });
    cleanups.push(() => reopened.close());
    expect(await capacityKind(reopened.put(scope(1), "v", one))).toBe("version");
    // Other names are not affected.
    expect((await reopened.put(scope(1), "w", one)).version).toBe(1);
  });

  it("names: capacity_reached past the ceiling, still after delete and restart", async () => {
    const { service, root } = await fresh(SMALL);
    for (let i = 0; i < 6; i++) await service.put(scope(1), `n${i}`, one);
    expect(await capacityKind(service.put(scope(1), "n6", one))).toBe("name");
    await service.delete(scope(1), "n0", "all");
    expect(await capacityKind(service.put(scope(1), "n6", one))).toBe("name");
    await service.close();
    const reopened = await FsArtifactService.open({ root, ...SMALL });
    cleanups.push(() => reopened.close());
    expect(await capacityKind(reopened.put(scope(1), "n6", one))).toBe("name");
    // Existing names keep taking versions, deleted ones included.
    expect((await reopened.put(scope(1), "n0", one)).version).toBe(2);
    expect((await reopened.put(scope(2), "n6", one)).version).toBe(1);
  });

  it("scopes: capacity_reached past the ceiling, still after delete and restart", async () => {
    const { service, root } = await fresh(SMALL);
    for (let i = 0; i < 6; i++) await service.put(scope(i), "x", one);
    expect(await capacityKind(service.put(scope(6), "x", one))).toBe("scope");
    await service.delete(scope(0), "x", "all");
    expect(await capacityKind(service.put(scope(6), "x", one))).toBe("scope");
    await service.close();
    const reopened = await FsArtifactService.open({ root, ...SMALL });
    cleanups.push(() => reopened.close());
    expect(await capacityKind(reopened.put(scope(6), "x", one))).toBe("scope");
    expect((await reopened.put(scope(0), "x", one)).version).toBe(2);
    // Nothing of the refused scope was written.
    const digest = scopeDigest(scope(6));
    expect((await walk(root)).filter((e) => e.path.includes(digest))).toEqual([]);
  });

  it("versions per name are bounded on their own, not by maxScanEntries", async () => {
    // A name's directory then holds 40 entries, over maxScanEntries: every read of it in
    // full (an instance's first, a listing, repair) is bounded by the version ceiling.
    const options = { ...SMALL, maxVersionsPerName: 20 };
    const { service: a, root } = await fresh(options);
    const b = await FsArtifactService.open({ root, ...options });
    cleanups.push(() => b.close());
    for (let i = 1; i <= 5; i++) expect((await a.put(scope(1), "v", one)).version).toBe(i);
    for (let i = 6; i <= 10; i++) expect((await b.put(scope(1), "v", one)).version).toBe(i);
    // a's next number is taken by b: it finds the top by probing upward from there.
    expect((await a.put(scope(1), "v", one)).version).toBe(11);
    for (let i = 12; i <= 20; i++) expect((await b.put(scope(1), "v", one)).version).toBe(i);
    expect(await capacityKind(a.put(scope(1), "v", one))).toBe("version");
    const c = await FsArtifactService.open({ root, ...options });
    cleanups.push(() => c.close());
    expect((await c.head(scope(1), "v")).version).toBe(20);
    const versions = [];
    for (let cursor: number | undefined, page = 0; page === 0 || cursor !== undefined; page++) {
      const listed = await c.listVersions(scope(1), "v", cursor === undefined ? {} : { cursor });
      versions.push(...listed.items.map((meta) => meta.version));
      cursor = listed.nextCursor;
    }
    expect(versions.sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(await c.repair({ minAgeMs: 0 })).toMatchObject({ complete: true, corrupt: 0 });
    await c.delete(scope(1), "v", "all");
    expect(await codeOf(c.head(scope(1), "v"))).toBe("not_found");
    expect(await capacityKind(c.put(scope(1), "v", one))).toBe("version");
  });

  it("every directory stays within maxScanEntries at the ceilings", async () => {
    const { service, root } = await fresh(SMALL);
    for (let s = 0; s < 6; s++) {
      for (let n = 0; n < 6; n++) {
        for (let v = 0; v < 4; v++) await service.put(scope(s), `n${n}`, one);
      }
    }
    const counts = new Map<string, number>();
    for (const entry of await walk(root)) {
      const parent = entry.path.split("/").slice(0, -1).join("/");
      counts.set(parent, (counts.get(parent) ?? 0) + 1);
    }
    expect(Math.max(...counts.values())).toBeLessThanOrEqual(12);
  });

  it("tombstones: deleted versions are never reused or resurrected across restart", async () => {
    const { service, root } = await fresh();
    for (let i = 0; i < 3; i++) await service.put(scope(1), "t", one);
    await service.delete(scope(1), "t", 2);
    await service.close();
    let reopened = await FsArtifactService.open({ root });
    expect(await codeOf(reopened.get(scope(1), "t", { version: 2 }))).toBe("not_found");
    expect((await reopened.listVersions(scope(1), "t")).items.map((m) => m.version)).toEqual([
      1, 3,
    ]);
    await reopened.delete(scope(1), "t", "all");
    await reopened.close();
    reopened = await FsArtifactService.open({ root });
    cleanups.push(() => reopened.close());
    expect((await reopened.listNames(scope(1))).items).toEqual([]);
    expect((await reopened.put(scope(1), "t", one)).version).toBe(4);
    expect((await reopened.listVersions(scope(1), "t")).items.map((m) => m.version)).toEqual([4]);
  });
});

describe("repair", () => {
  async function withLeftovers() {
    const temp = await fresh();
    const { service, root } = temp;
    await service.put(scope(1), "x", one);
    await service.put(scope(1), "x", one);
    await service.put(scope(1), "y", one);
    const x2 = fsArtifactPaths(root, scope(1), "x", 2);
    const y1 = fsArtifactPaths(root, scope(1), "y", 1);
    const x3 = fsArtifactPaths(root, scope(1), "x", 3);
    const scopeStaging = join(root, "scopes", scopeDigest(scope(1)), "staging");
    // An unpublished version file (a put cut short before its publication).
    await writeFile(x3.reservation, "partial");
    // Staging leftovers, at the root and in the scope.
    await writeFile(join(root, "staging", "dead.slot"), "{");
    await writeFile(join(scopeStaging, "dead.d"), "x");
    await writeFile(join(scopeStaging, "dead.m"), "{");
    // Published metadata whose data is missing (a store written before version files).
    await toLegacyLayout(y1);
    await rm(y1.data);
    return { ...temp, x2, x3, y1, scopeStaging };
  }

  it("keeps young leftovers, then removes old ones but never reservations, slots or metadata", async () => {
    const { service, root, x3, y1, scopeStaging } = await withLeftovers();
    const young = await service.repair({ minAgeMs: 60_000 });
    expect(young).toMatchObject({
      removed: 0,
      corrupt: 1,
      reservationsPreserved: 4,
      complete: true,
    });

    const before = await walk(root);
    const report = await service.repair({ minAgeMs: 0 });
    expect(report).toMatchObject({
      removed: 4,
      corrupt: 1,
      reservationsPreserved: 4,
      complete: true,
    });
    expect(report.scanned).toBeGreaterThan(10);
    const after = new Set((await walk(root)).map((e) => e.path));
    const gone = before.map((e) => e.path).filter((path) => !after.has(path));
    expect(gone.sort()).toEqual(
      [
        "staging/dead.slot",
        `${scopeStaging.slice(root.length + 1)}/dead.d`,
        `${scopeStaging.slice(root.length + 1)}/dead.m`,
      ].sort(),
    );
    // The cut-short version file is emptied, its reservation kept.
    expect((await stat(x3.reservation)).size).toBe(0);
    // Reported, not erased; the burned version 3 stays reserved.
    expect(after.has(y1.metadata.slice(root.length + 1))).toBe(true);
    expect(after.has(x3.reservation.slice(root.length + 1))).toBe(true);
    expect((await service.put(scope(1), "x", one)).version).toBe(4);
  });

  it("is bounded by limit and reports whether it got through", async () => {
    const { service } = await withLeftovers();
    const reports = [];
    for (;;) {
      const report = await service.repair({ minAgeMs: 0, limit: 1 });
      reports.push(report);
      if (report.complete) break;
    }
    expect(reports.map((r) => [r.removed, r.complete])).toEqual([
      [1, false],
      [1, false],
      [1, false],
      [1, true],
    ]);
    expect((await service.repair({ minAgeMs: 0, limit: 1 })).removed).toBe(0);
  });

  it("counts the release of each deleted version's bytes against limit", async () => {
    const { service, root } = await fresh();
    const deleted = [1, 2, 3].map((version) => fsArtifactPaths(root, scope(1), "z", version));
    for (const _ of deleted) await service.put(scope(1), "z", new Uint8Array(4096).fill(7));
    // Deletes cut short after their tombstones: each version file is still whole.
    for (const paths of deleted) await rename(paths.metadata, paths.tombstone);
    const reports = [];
    for (;;) {
      const report = await service.repair({ minAgeMs: 0, limit: 2 });
      reports.push([report.removed, report.complete]);
      if (report.complete) break;
    }
    expect(reports).toEqual([
      [2, false],
      [1, true],
    ]);
    for (const paths of deleted) {
      expect([(await stat(paths.reservation)).size, (await stat(paths.tombstone)).size]).toEqual([
        0, 0,
      ]);
    }
  });

  it("uses recoveryGraceMs as the default age", async () => {
    const { service, root } = await fresh({ recoveryGraceMs: 1_000 });
    const leftover = join(root, "staging", "old.slot");
    await writeFile(leftover, "{");
    expect((await service.repair()).removed).toBe(0);
    const old = new Date(Date.now() - 2_000);
    await utimes(leftover, old, old);
    expect((await service.repair()).removed).toBe(1);
  });

  it("validates its options", async () => {
    const { service } = await fresh();
    for (const options of [{ limit: 0 }, { minAgeMs: -1 }, { minAge: 0 }, "x"]) {
      expect(await codeOf(service.repair(options as never))).toBe("invalid_argument");
    }
  });
});

describe("one process", () => {
  it("independent scopes do not wait for each other (no global queue)", async () => {
    const { service } = await fresh({ maxArtifactBytes: 64 * 1024 * 1024 });
    const big = new Uint8Array(48 * 1024 * 1024);
    const finished: string[] = [];
    const slow = service.put(scope(1), "big", big).then(() => finished.push("big"));
    const quick = service.put(scope(2), "small", one).then(() => finished.push("small"));
    await Promise.all([slow, quick]);
    expect(finished).toEqual(["small", "big"]);
  });

  it("a put never sees later changes to the caller's buffer", async () => {
    const { service } = await fresh();
    const data = new Uint8Array(1024 * 1024).fill(7);
    const pending = service.put(scope(1), "x", data);
    data.fill(9);
    const meta = await pending;
    const artifact = await service.get(scope(1), "x");
    expect(artifact.sha256).toBe(meta.sha256);
    expect(artifact.data.every((byte) => byte === 7)).toBe(true);
    expect(meta.sha256).toBe(sha256Hex(new Uint8Array(1024 * 1024).fill(7)));
  });

  it("close() fails every later call, repair included", async () => {
    const { service } = await fresh();
    await service.close();
    expect(await codeOf(service.repair())).toBe("closed");
    expect(await codeOf(service.put(scope(1), "x", one))).toBe("closed");
  });
});
