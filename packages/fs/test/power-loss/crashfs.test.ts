import { constants } from "node:fs";
import { link, mkdir, open, readdir, readFile, rename, unlink } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CrashFs, crashfsBinary } from "./crashfs.js";

// crashfs itself: what it keeps and drops at a cut, through plain file system calls.

let crashfs: CrashFs;
let root: string;
beforeAll(async () => {
  crashfs = await CrashFs.start(crashfsBinary());
  root = crashfs.mountpoint;
});
afterAll(async () => {
  await crashfs?.stop();
});
beforeEach(async () => {
  await crashfs.fresh();
});

async function writeFile(path: string, text: string, sync: boolean): Promise<void> {
  const handle = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND);
  try {
    await handle.writeFile(text);
    if (sync) await handle.sync();
  } finally {
    await handle.close().catch(() => {});
  }
}

async function syncDir(path: string): Promise<void> {
  const handle = await open(path, constants.O_RDONLY | constants.O_DIRECTORY);
  await handle.sync();
  await handle.close();
}

describe("crashfs", () => {
  it("drops a synced file whose directory was not synced", async () => {
    await writeFile(join(root, "a"), "hello", true);
    await crashfs.remount("drop", 1);
    expect(await readdir(root)).toEqual([]);
  });

  it("keeps synced content and entries, and drops what came after", async () => {
    await writeFile(join(root, "a"), "hello", true);
    await mkdir(join(root, "d"));
    await writeFile(join(root, "d", "never-synced"), "x", false);
    await syncDir(join(root, "d"));
    await syncDir(root);
    await writeFile(join(root, "a"), " world", false);
    await rename(join(root, "a"), join(root, "d", "b"));
    await writeFile(join(root, "c"), "c", true);
    const report = await crashfs.remount("drop", 1);
    expect((await readdir(root)).sort()).toEqual(["a", "d"]);
    expect(await readFile(join(root, "a"), "utf8")).toBe("hello");
    expect(await readdir(join(root, "d"))).toEqual(["never-synced"]);
    // Its name was synced, its content never was.
    expect(await readFile(join(root, "d", "never-synced"), "utf8")).toBe("");
    expect(report).toMatchObject({ cutOn: "idle", pending: 2, keptOps: 0 });
  });

  it("syncs a rename across directories one directory at a time", async () => {
    await mkdir(join(root, "d"));
    await writeFile(join(root, "a"), "a", true);
    await syncDir(root);
    await rename(join(root, "a"), join(root, "d", "b"));
    await syncDir(join(root, "d"));
    await crashfs.remount("drop", 1);
    // The new name is durable, the removal of the old one is not: one file, two names.
    expect((await readdir(root)).sort()).toEqual(["a", "d"]);
    expect(await readFile(join(root, "d", "b"), "utf8")).toBe("a");
  });

  it("fails every operation from the armed one on, which does nothing", async () => {
    await crashfs.arm(2);
    // Operation 1 creates the file, operation 2 (its write) is cut.
    await expect(writeFile(join(root, "a"), "a", false)).rejects.toMatchObject({ code: "EIO" });
    await expect(readdir(root)).rejects.toMatchObject({ code: "EIO" });
    expect(await crashfs.status()).toEqual({ ops: 2, cutOn: "write" });
    const report = await crashfs.remount("drop", 1);
    expect(report).toMatchObject({ cutOn: "write", ops: 2, pending: 1 });
    expect(await readdir(root)).toEqual([]);
  });

  it("keeps a seeded subset of unsynced operations in subset mode, the same for the same seed", async () => {
    const survivors = new Set<string>();
    for (const seed of [1, 2, 3, 4, 5, 6, 1]) {
      await crashfs.fresh();
      for (const name of ["a", "b", "c", "d"]) await writeFile(join(root, name), name, true);
      await link(join(root, "a"), join(root, "e"));
      await unlink(join(root, "b"));
      await crashfs.remount("subset", seed);
      const kept = (await readdir(root)).sort().join(",");
      if (seed === 1 && survivors.size > 0) expect(survivors.has(kept)).toBe(true);
      survivors.add(kept);
    }
    // Different seeds keep different subsets.
    expect(survivors.size).toBeGreaterThan(2);
  });

  it("tears an append at or after what fsync made durable, never inside it", async () => {
    const lengths = new Set<number>();
    for (let seed = 1; seed <= 24; seed++) {
      await crashfs.fresh();
      await writeFile(join(root, "log"), "synced|", true);
      await syncDir(root);
      await writeFile(join(root, "log"), "appended after", false);
      const report = await crashfs.remount("subset", seed);
      const text = await readFile(join(root, "log"), "utf8");
      expect(text.startsWith("synced|")).toBe(true);
      expect("synced|appended after".startsWith(text)).toBe(true);
      if (report.tornWrites > 0) lengths.add(text.length);
    }
    // Some seeds tear the append part-way (the draw has 22 ends, 7 of them inside "synced|").
    expect([...lengths].some((length) => length > 7 && length < 21)).toBe(true);
  });
});
