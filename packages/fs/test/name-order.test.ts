import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { compareUtf8, type Scope, scopeDigest, sha256Hex } from "@artifact-kit/core";
import { afterEach, describe, expect, it } from "vitest";
import { FsArtifactService } from "../src/index.js";
import { testOnlyNameOrder } from "../src/name-order.js";
import { tempRoot } from "./helpers.js";

// The ordered name index (name-order.ts): a page is read from a log and an immutable index
// generation, never from the whole names directory. Whatever state the index is in (many
// generations, missing, damaged, a store of the previous layout), a listing must equal the
// names that have a live version, in UTF-8 order, under every cursor and prefix.

const SCOPE: Scope = { kind: "app", app: "order" };
const one = new Uint8Array([1]);
const DEFAULT_COMPACT_AT = testOnlyNameOrder.compactAtLogEntries;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  testOnlyNameOrder.compactAtLogEntries = DEFAULT_COMPACT_AT;
  testOnlyNameOrder.beforeRebuildLinks = undefined;
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function store() {
  const temp = await tempRoot("order");
  cleanups.push(temp.cleanup);
  const open = async () => {
    const service = await FsArtifactService.open({ root: temp.root });
    cleanups.push(() => service.close());
    return service;
  };
  const scopeDir = join(temp.root, "scopes", scopeDigest(SCOPE));
  return { root: temp.root, scopeDir, open };
}

/** Names of every kind of UTF-8 length, so that order is byte order, not UTF-16 order. */
function namesOf(count: number): string[] {
  const marks = ["", "é", "\u{1F600}", "\uFFFD", "/x"];
  return Array.from({ length: count }, (_, i) => `n${(i * 7919) % 1000}${marks[i % marks.length]}`);
}

async function listAll(
  service: FsArtifactService,
  options: { limit: number; prefix?: string },
): Promise<string[]> {
  const names: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await service.listNames(
      SCOPE,
      cursor === undefined ? options : { ...options, cursor },
    );
    names.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return names;
}

const sorted = (names: Iterable<string>) => [...new Set(names)].sort(compareUtf8);

describe("ordered name index", () => {
  it("pages through many compactions, blocks, cursors and prefixes, cold and warm", async () => {
    testOnlyNameOrder.compactAtLogEntries = 16;
    const { open, scopeDir } = await store();
    const writer = await open();
    const names = namesOf(700);
    for (let i = 0; i < names.length; i += 20) {
      await Promise.all(names.slice(i, i + 20).map((name) => writer.put(SCOPE, name, one)));
    }
    // One name with no live version left is never listed.
    await writer.delete(SCOPE, names[3] as string, "all");
    const live = sorted(names.filter((name) => name !== names[3]));
    const generations = await readdir(join(scopeDir, "name-index"));
    expect(generations.length).toBeGreaterThan(0);
    expect(generations.length).toBeLessThanOrEqual(3);
    expect((await readdir(join(scopeDir, "name-log"))).length).toBeLessThan(16);

    const cold = await open();
    expect(await listAll(cold, { limit: 37 })).toEqual(live);
    expect(await listAll(cold, { limit: 1000 })).toEqual(live);
    for (const prefix of ["n1", "n99", "n5é", "zz"]) {
      expect(await listAll(cold, { limit: 9, prefix })).toEqual(
        live.filter((name) => name.startsWith(prefix)),
      );
    }
    // Names created after the last compaction are in the log only, and listed too.
    await writer.put(SCOPE, "n0-late", one);
    expect((await cold.listNames(SCOPE, { limit: 3 })).items).toEqual(
      sorted([...live, "n0-late"]).slice(0, 3),
    );
  });

  it("opens a store of the previous layout (no index, no log) and converts it", async () => {
    const { open, scopeDir } = await store();
    const writer = await open();
    const names = namesOf(300);
    for (const name of names) await writer.put(SCOPE, name, one);
    await writer.close();
    await rm(join(scopeDir, "name-index"), { recursive: true });
    await rm(join(scopeDir, "name-log"), { recursive: true });

    const reader = await open();
    expect(await listAll(reader, { limit: 50 })).toEqual(sorted(names));
    expect((await readdir(join(scopeDir, "name-index"))).length).toBe(1);
    await reader.put(SCOPE, "a-new-name", one);
    expect((await reader.listNames(SCOPE, { limit: 1 })).items).toEqual(["a-new-name"]);
    expect(await listAll(await open(), { limit: 50 })).toEqual(sorted([...names, "a-new-name"]));
  });

  it("rebuilds a damaged or missing index from the slots, on a listing and on repair", async () => {
    testOnlyNameOrder.compactAtLogEntries = 16;
    const { open, scopeDir } = await store();
    const writer = await open();
    const names = namesOf(400);
    for (const name of names) await writer.put(SCOPE, name, one);
    const indexDir = join(scopeDir, "name-index");
    const newest = async () => {
      const files = await readdir(indexDir);
      return join(indexDir, files.sort((a, b) => parseInt(b, 10) - parseInt(a, 10))[0] as string);
    };
    const damages: ((path: string) => Promise<void>)[] = [
      // A flipped byte in a block.
      async (path) => {
        const bytes = await readFile(path);
        const at = bytes.length - 10;
        bytes.writeUInt8(bytes.readUInt8(at) ^ 1, at);
        await writeFile(path, bytes);
      },
      // Torn.
      async (path) => writeFile(path, (await readFile(path)).subarray(0, 200)),
      // A header with its right SHA-256 that points past the end of the file.
      async (path) => {
        const header = JSON.stringify({ count: 1, blocks: [["a", 0, 999, "0".repeat(64)]] });
        const length = String(header.length).padStart(10, "0");
        await writeFile(path, `akni1 ${length} ${sha256Hex(header)}\n${header}`);
      },
      // A log entry that spells another name than its digest's.
      async () => {
        const file = `${sha256Hex("not-created")}.${Buffer.from("other").toString("hex")}.json`;
        await writeFile(join(scopeDir, "name-log", file), "");
      },
      // Gone: every generation.
      async () => rm(indexDir, { recursive: true }),
    ];
    for (const damage of damages) {
      await damage(await newest().catch(() => indexDir));
      expect(await listAll(await open(), { limit: 64 })).toEqual(sorted(names));
    }
    for (const damage of damages) {
      await damage(await newest().catch(() => indexDir));
      const service = await open();
      const report = await service.repair({ minAgeMs: 0 });
      expect(report.complete).toBe(true);
      // Rebuilt by repair: the newest generation reads whole again.
      const bytes = await readFile(await newest());
      expect(bytes.subarray(0, 5).toString()).toBe("akni1");
      expect(await listAll(service, { limit: 64 })).toEqual(sorted(names));
    }
  });

  it("lists, repairs and writes a scope whose creation a power cut left without its staging directory", async () => {
    const { open, scopeDir } = await store();
    const service = await open();
    // A power cut may keep some of the scope's unsynced mkdirs and not others, and no slot.
    await mkdir(join(scopeDir, "names"), { recursive: true });
    expect(await listAll(service, { limit: 10 })).toEqual([]);
    expect((await service.listVersions(SCOPE, "a")).items).toEqual([]);
    expect((await service.repair({ minAgeMs: 0 })).complete).toBe(true);
    await service.put(SCOPE, "a", one);
    expect(await listAll(await open(), { limit: 10 })).toEqual(["a"]);
  });

  it("loses no name when another instance builds a generation while a rebuild is between its reads and its link", async () => {
    const { open } = await store();
    const [a, b] = [await open(), await open()];
    await a.put(SCOPE, "first", one);
    // While `a` rebuilds the scope's first generation from what it has read, `b` creates a
    // name and builds that generation itself (folding the name's log entry away).
    testOnlyNameOrder.beforeRebuildLinks = async () => {
      testOnlyNameOrder.beforeRebuildLinks = undefined;
      await b.put(SCOPE, "second", one);
      expect(await listAll(b, { limit: 10 })).toEqual(["first", "second"]);
    };
    expect(await listAll(a, { limit: 10 })).toEqual(["first", "second"]);
    expect(testOnlyNameOrder.beforeRebuildLinks).toBeUndefined();
    expect(await listAll(await open(), { limit: 10 })).toEqual(["first", "second"]);
  });

  it("keeps a log entry whose slot is not linked yet (a creation in flight) out of the index", async () => {
    testOnlyNameOrder.compactAtLogEntries = 2;
    const { open, scopeDir } = await store();
    const writer = await open();
    await writer.put(SCOPE, "first", one);
    // What a creator killed between its log entry and its slot leaves behind.
    const digest = sha256Hex("in-flight");
    const entry = join(scopeDir, "name-log", `${digest}.json`);
    await writeFile(entry, JSON.stringify({ format: 1, name: "in-flight" }));
    for (const name of ["second", "third", "fourth"]) await writer.put(SCOPE, name, one);
    expect(await readdir(join(scopeDir, "name-log"))).toContain(`${digest}.json`);
    expect(await listAll(await open(), { limit: 2 })).toEqual([
      "first",
      "fourth",
      "second",
      "third",
    ]);
    // The creation finishes later: its name is listed at once, and folded in next time.
    await writer.put(SCOPE, "in-flight", one);
    expect(await listAll(await open(), { limit: 2 })).toEqual(
      sorted(["first", "fourth", "second", "third", "in-flight"]),
    );
  });
});
