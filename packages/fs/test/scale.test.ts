import { readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { type Scope, scopeDigest } from "@artifact-kit/core";
import { afterEach, describe, expect, it } from "vitest";
import { FsArtifactService } from "../src/index.js";
import { codeOf, tempRoot } from "./helpers.js";

// The shortcuts that keep per-call cost flat as a store grows (issue 17) must never hide
// another process's change: directory readings are reused only while the directory is
// provably unchanged, and claims are found by probing rather than a full read.

const SCOPE: Scope = { kind: "app", app: "scale" };
const bytes = (text: string) => new TextEncoder().encode(text);
/** Longer than the period a directory must have been left alone before a reading is reused. */
const SETTLE_MS = 2_300;

// The tests take the package's limits (vitest.config.ts): the settle waits are at least
// SETTLE_MS, and on a loaded machine everything around them can take several times as long.
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function twoInstances(options: { maxScanEntries?: number; maxNamesPerScope?: number } = {}) {
  const temp = await tempRoot("scale");
  cleanups.push(temp.cleanup);
  const open = async () => {
    const service = await FsArtifactService.open({ root: temp.root, ...options });
    cleanups.push(() => service.close());
    return service;
  };
  return { root: temp.root, a: await open(), b: await open() };
}

describe("reused directory readings", () => {
  it("a reader that has settled on a directory still sees every later change by another instance", async () => {
    const { a, b } = await twoInstances();
    await a.put(SCOPE, "n1", bytes("1"));
    await a.put(SCOPE, "n2", bytes("2"));
    await sleep(SETTLE_MS);
    // Readings taken now may be reused by `a` while the directories stay unchanged.
    expect((await a.listNames(SCOPE)).items).toEqual(["n1", "n2"]);
    expect((await a.get(SCOPE, "n1")).version).toBe(1);
    expect((await a.listVersions(SCOPE, "n1")).items.map((m) => m.version)).toEqual([1]);
    expect((await a.listNames(SCOPE)).items).toEqual(["n1", "n2"]);

    await b.put(SCOPE, "n0", bytes("0"));
    await b.put(SCOPE, "n1", bytes("1b"));
    expect((await a.listNames(SCOPE)).items).toEqual(["n0", "n1", "n2"]);
    expect(new TextDecoder().decode((await a.get(SCOPE, "n1")).data)).toBe("1b");
    expect((await a.listVersions(SCOPE, "n1")).items.map((m) => m.version)).toEqual([1, 2]);

    await sleep(SETTLE_MS);
    expect((await a.get(SCOPE, "n1")).version).toBe(2);
    await b.delete(SCOPE, "n1", "latest");
    await b.delete(SCOPE, "n2", "all");
    expect((await a.get(SCOPE, "n1")).version).toBe(1);
    expect(await codeOf(a.get(SCOPE, "n2"))).toBe("not_found");
    expect((await a.listNames(SCOPE)).items).toEqual(["n0", "n1"]);
    // A's own delete of what its reading still lists.
    await a.delete(SCOPE, "n1", "latest");
    expect(await codeOf(a.get(SCOPE, "n1"))).toBe("not_found");
  });
});

describe("the name snapshot", () => {
  it("spares the next rebuild of the name index the slot reads, and is never trusted beyond the slots", async () => {
    const { root, a } = await twoInstances();
    const names = Array.from({ length: 260 }, (_, i) => `n${String(i).padStart(3, "0")}`);
    await Promise.all(names.map((name) => a.put(SCOPE, name, bytes("x"))));
    const snapshot = join(root, "scopes", scopeDigest(SCOPE), "names.snapshot");
    const listAll = async () => {
      // Without a generation, the listing rebuilds the index from the slots (and snapshot).
      await rm(join(root, "scopes", scopeDigest(SCOPE), "name-index"), { recursive: true });
      const fresh = await FsArtifactService.open({ root });
      try {
        return (await fresh.listNames(SCOPE, { limit: 1000 })).items;
      } finally {
        await fresh.close();
      }
    };
    expect(await listAll()).toEqual(names);
    const written = JSON.parse(await readFile(snapshot, "utf8"));
    expect(written.names).toEqual(names);
    // A snapshot that lies (a name no slot holds, a name missing) or is torn changes nothing.
    await writeFile(snapshot, JSON.stringify({ format: 1, names: ["evil", ...names.slice(1)] }));
    expect(await listAll()).toEqual(names);
    await writeFile(snapshot, '{"format":1,"names":["n0');
    expect(await listAll()).toEqual(names);
  });
});

describe("listNames with a prefix", () => {
  it("pages through exactly the live names with the prefix, under every cursor", async () => {
    const { a } = await twoInstances();
    const names = ["a", "a/b", "a/c", "a/d", "a/\u{1F600}", "a\u00e9", "ab", "b", "\u{1F600}"];
    for (const name of names) await a.put(SCOPE, name, bytes(name));
    await a.delete(SCOPE, "a/c", "all");
    const all = async (prefix: string, cursor?: string) => {
      const items: string[] = [];
      let page = await a.listNames(SCOPE, { prefix, limit: 1, ...(cursor && { cursor }) });
      items.push(...page.items);
      while (page.nextCursor !== undefined) {
        page = await a.listNames(SCOPE, { prefix, limit: 1, cursor: page.nextCursor });
        items.push(...page.items);
      }
      return items;
    };
    expect(await all("a/")).toEqual(["a/b", "a/d", "a/\u{1F600}"]);
    expect(await all("a/", "a/b")).toEqual(["a/d", "a/\u{1F600}"]);
    expect(await all("a/", "0")).toEqual(["a/b", "a/d", "a/\u{1F600}"]);
    expect(await all("a/", "b")).toEqual([]);
    expect(await all("a")).toEqual(["a", "a/b", "a/d", "a/\u{1F600}", "ab", "a\u00e9"]);
    expect(await all("\u{1F600}")).toEqual(["\u{1F600}"]);
    expect(await all("c")).toEqual([]);
  });
});

describe("capacity claims found by probing", () => {
  it("a new instance claims above the taken ones; a claim given back is reused only at the ceiling", async () => {
    const { root, a } = await twoInstances({ maxScanEntries: 20, maxNamesPerScope: 10 });
    for (let i = 0; i < 7; i++) await a.put(SCOPE, `n${i}`, bytes("x"));
    const claims = join(root, "scopes", scopeDigest(SCOPE), "name-claims");
    const numbers = async () => (await readdir(claims)).map(Number).sort((x, y) => x - y);
    const c = await FsArtifactService.open({ root, maxScanEntries: 20, maxNamesPerScope: 10 });
    cleanups.push(() => c.close());
    await c.put(SCOPE, "m0", bytes("x"));
    expect(await numbers()).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    // Removed by hand, claim 3 stands for one given back by a slot race's loser.
    await rm(join(claims, "3"));
    await a.put(SCOPE, "m1", bytes("x"));
    await a.put(SCOPE, "m2", bytes("x"));
    expect(await numbers()).toEqual([1, 2, 4, 5, 6, 7, 8, 9, 10]);
    // The top is full: the given-back number is taken, then the ceiling holds exactly.
    await c.put(SCOPE, "m3", bytes("x"));
    expect(await numbers()).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(await codeOf(a.put(SCOPE, "m4", bytes("x")))).toBe("capacity_reached");
    expect(await codeOf(c.put(SCOPE, "m4", bytes("x")))).toBe("capacity_reached");
  });
});
