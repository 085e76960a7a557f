import { mkdir, readdir } from "node:fs/promises";
import { afterEach, describe, expect, it, vi } from "vitest";
import { VersionAllocator } from "../src/allocator.js";
import { resolveFsConfig } from "../src/config.js";
import { createExclusive } from "../src/io.js";
import { namePaths, rootPaths, scopePaths } from "../src/layout.js";
import { tempRoot } from "./helpers.js";

// Readers find a name's highest version by probing reservations upward (version-tops.ts),
// which is exact only if no reservation ever stands above a missing one. A reservation whose
// create fails must therefore not leave the puts beside it reserving past it.

vi.mock("../src/io.js", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../src/io.js")>();
  return { ...actual, createExclusive: vi.fn(actual.createExclusive) };
});

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  vi.mocked(createExclusive).mockClear();
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe("version reservations", () => {
  it("stay without a gap when one create fails while others of the same name wait", async () => {
    const temp = await tempRoot("allocator");
    cleanups.push(temp.cleanup);
    const config = resolveFsConfig({ root: temp.root });
    const scopeDirs = scopePaths(rootPaths(temp.root), "a".repeat(64));
    const nameDirs = namePaths(scopeDirs, "n");
    await mkdir(nameDirs.dir, { recursive: true });
    const actual = vi.mocked(createExclusive).getMockImplementation();
    vi.mocked(createExclusive).mockClear();
    // The second create fails as a full disk would.
    vi.mocked(createExclusive)
      .mockImplementationOnce((path, mode) => (actual as typeof createExclusive)(path, mode))
      .mockImplementationOnce(async () => {
        throw Object.assign(new Error("no space"), { code: "ENOSPC" });
      });
    const allocator = new VersionAllocator(config);
    const results = await Promise.allSettled(
      Array.from({ length: 4 }, () =>
        allocator.reserve(nameDirs, (path) => createExclusive(path, config.fileMode)),
      ),
    );
    expect(results.map((result) => result.status)).toEqual([
      "fulfilled",
      "rejected",
      "fulfilled",
      "fulfilled",
    ]);
    const versions = results.flatMap((result) =>
      result.status === "fulfilled" ? [result.value.version] : [],
    );
    expect(versions).toEqual([1, 2, 3]);
    for (const result of results) {
      if (result.status === "fulfilled") await result.value.reservation.close();
    }
    expect((await readdir(nameDirs.dir)).sort()).toEqual(["1.r", "2.r", "3.r"]);
  });
});
