import { readdir, unlink } from "node:fs/promises";
import type { Scope } from "@artifact-kit/core";
import { afterEach, describe, expect, it } from "vitest";
import { FsArtifactService, fsArtifactPaths } from "../src/index.js";
import { MAX_NUMBERED_MISSES } from "../src/version-walk.js";
import { codeOf, downloadAll, tempRoot } from "./helpers.js";

// The latest version and pages of versions are found by version number from the highest
// reservation (version-tops.ts, version-walk.ts), not from a read of the name's directory.
// Whatever another instance does, and whatever gaps an earlier release left, they must show
// exactly the live versions.

const SCOPE: Scope = { kind: "app", app: "walk" };
const NAME = "n";
const bytes = (text: string) => new TextEncoder().encode(text);

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function twoInstances() {
  const temp = await tempRoot("walk");
  cleanups.push(temp.cleanup);
  const open = async () => {
    const service = await FsArtifactService.open({ root: temp.root });
    cleanups.push(() => service.close());
    return service;
  };
  return { root: temp.root, a: await open(), b: await open(), open };
}

async function putMany(service: FsArtifactService, count: number) {
  for (let i = 0; i < count; i++) await service.put(SCOPE, NAME, bytes(`v${i}`));
}

/** Every page of `limit` from every cursor, against the live versions `live`. */
async function expectPages(service: FsArtifactService, live: readonly number[], limit: number) {
  for (const cursor of [undefined, ...live, ...live.map((v) => v + 1)]) {
    const after = live.filter((v) => cursor === undefined || v > cursor);
    const page = await service.listVersions(SCOPE, NAME, {
      limit,
      ...(cursor === undefined ? {} : { cursor }),
    });
    expect(page.items.map((meta) => meta.version)).toEqual(after.slice(0, limit));
    expect(page.nextCursor).toBe(after.length > limit ? after[limit - 1] : undefined);
  }
}

describe("versions found by number", () => {
  it("a reader sees another instance's puts and deletes of the latest at once, past long runs of deleted versions", async () => {
    const { a, b } = await twoInstances();
    await putMany(b, 3);
    // `a` has seen the name: what it knows of it must not hide what `b` does next.
    expect((await a.get(SCOPE, NAME)).version).toBe(3);
    const count = 2 * MAX_NUMBERED_MISSES + 20;
    await putMany(b, count - 3);
    expect((await a.head(SCOPE, NAME)).version).toBe(count);
    await b.delete(SCOPE, NAME, "latest");
    expect((await a.head(SCOPE, NAME)).version).toBe(count - 1);
    // Runs of deleted versions longer than the walk tries by number, at the top and inside.
    const keep = MAX_NUMBERED_MISSES + 10;
    for (let v = keep + 1; v < count; v++) await b.delete(SCOPE, NAME, v);
    const inside = Array.from({ length: MAX_NUMBERED_MISSES + 1 }, (_, i) => i + 3);
    for (const v of inside) await b.delete(SCOPE, NAME, v);
    const live = Array.from({ length: keep }, (_, i) => i + 1).filter((v) => !inside.includes(v));
    expect((await a.get(SCOPE, NAME)).version).toBe(keep);
    await expectPages(a, live, 3);
    await a.delete(SCOPE, NAME, "latest");
    expect((await b.head(SCOPE, NAME)).version).toBe(keep - 1);
  }, 300_000);

  it("a get, head and download of the latest answer another instance's newer version, whatever the reader last saw on top", async () => {
    const { a, b } = await twoInstances();
    await putMany(b, 2);
    const download = async () => {
      const { meta, bytes } = await downloadAll(a, SCOPE, NAME);
      return { version: meta.version, text: bytes.toString() };
    };
    // Each read starts from a top `a` has seen: a version since superseded, or since deleted.
    let top = 2;
    for (let round = 0; round < 6; round++) {
      expect((await a.head(SCOPE, NAME)).version).toBe(top);
      await b.put(SCOPE, NAME, bytes(`round ${round}`));
      const got = await a.get(SCOPE, NAME);
      expect([got.version, Buffer.from(got.data).toString()]).toEqual([top + 1, `round ${round}`]);
      await b.put(SCOPE, NAME, bytes("newer"));
      expect(await download()).toEqual({ version: top + 2, text: "newer" });
      await b.delete(SCOPE, NAME, top + 2);
      top += 1;
      expect((await a.head(SCOPE, NAME)).version).toBe(top);
      top += 1; // the deleted version's number is never given again
      await b.put(SCOPE, NAME, bytes("refill"));
      top += 1;
    }
  }, 300_000);

  it("pages under every cursor while another instance deletes", async () => {
    const { a, b } = await twoInstances();
    await putMany(a, 40);
    let live = Array.from({ length: 40 }, (_, i) => i + 1);
    await expectPages(a, live, 7);
    for (const v of [1, 7, 8, 9, 20, 40]) await b.delete(SCOPE, NAME, v);
    live = live.filter((v) => ![1, 7, 8, 9, 20, 40].includes(v));
    await expectPages(a, live, 7);
    await b.put(SCOPE, NAME, bytes("41"));
    await expectPages(a, [...live, 41], 7);
  }, 300_000);

  it("a store whose reservations have gaps (as a put cut short by an earlier release left) still reads and lists every version", async () => {
    const { root, a, open } = await twoInstances();
    await putMany(a, 12);
    // Version 5 reserved nothing and was never published; version 12 kept no reservation.
    const gone = fsArtifactPaths(root, SCOPE, NAME, 5);
    for (const path of [gone.reservation, gone.metadata]) await unlink(path);
    await unlink(fsArtifactPaths(root, SCOPE, NAME, 12).reservation);
    const later = await open();
    const live = [1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12];
    expect((await later.get(SCOPE, NAME)).version).toBe(12);
    await expectPages(later, live, 4);
    // New versions go above the highest, and readers find them.
    const put = await later.put(SCOPE, NAME, bytes("13"));
    expect(put.version).toBe(13);
    expect((await a.head(SCOPE, NAME)).version).toBe(13);
    await later.delete(SCOPE, NAME, "latest");
    expect((await a.head(SCOPE, NAME)).version).toBe(12);
  });

  it("concurrent puts of one name in one instance leave reservations without a gap", async () => {
    const { root, a } = await twoInstances();
    await Promise.all(Array.from({ length: 24 }, (_, i) => a.put(SCOPE, NAME, bytes(`${i}`))));
    const dir = fsArtifactPaths(root, SCOPE, NAME, 1).nameDir;
    const reserved = (await readdir(dir))
      .filter((entry) => entry.endsWith(".r"))
      .map((entry) => Number.parseInt(entry, 10))
      .sort((x, y) => x - y);
    expect(reserved).toEqual(Array.from({ length: 24 }, (_, i) => i + 1));
    expect(await codeOf(a.get(SCOPE, NAME, { version: 25 }))).toBe("not_found");
  });
});
