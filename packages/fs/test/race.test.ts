import { compareUtf8, type Scope, scopeDigest } from "@artifact-kit/core";
import { afterEach, describe, expect, it } from "vitest";
import { FsArtifactService } from "../src/index.js";
import { codeOf, tempRoot } from "./helpers.js";
import { startChild, walk } from "./processes.js";

const CHILDREN = 6;
const PUTS = 25;
const FRESH_SCOPES = 4;
const NAMES_EACH = 40;

interface Reported {
  kind: "fresh" | "own" | "shared";
  scope: Scope;
  name: string;
  version: number;
}

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

describe("several OS processes on one root", () => {
  it(`${CHILDREN} processes put to one name, and create the same scope and name slots, at once`, async () => {
    const temp = await tempRoot("race");
    cleanup = temp.cleanup;
    // An instance that looked for the shared name before it existed: what it remembers of the
    // name must not hide a version from it afterwards.
    const early = await FsArtifactService.open({ root: temp.root });
    const sharedScope: Scope = { kind: "user", app: "race", user: "shared" };
    expect(await codeOf(early.head(sharedScope, "one/name"))).toBe("not_found");
    // Separate processes, each with its own service instance; released together.
    const children = Array.from({ length: CHILDREN }, (_, id) =>
      startChild("race-child.mjs", [temp.root, String(id), String(PUTS), String(FRESH_SCOPES)]),
    );
    await Promise.all(children.map((child) => child.waitFor("ready")));
    for (const child of children) child.process.stdin?.write("go\n");
    const results = await Promise.all(children.map((child) => child.done));

    const reported: Reported[] = [];
    for (const { lines, code } of results) {
      expect(code).toBe(0);
      expect(lines.filter((line) => line.startsWith("stale"))).toEqual([]);
      const own = lines.filter((line) => line.startsWith("{")).map((line) => JSON.parse(line));
      // Every put of every process succeeded.
      expect(own).toHaveLength(FRESH_SCOPES + 1 + PUTS);
      reported.push(...own);
    }

    // One name, many writers: distinct versions, none skipped, none lost.
    const shared = reported.filter((r) => r.kind === "shared").map((r) => r.version);
    expect(new Set(shared).size).toBe(CHILDREN * PUTS);
    expect(shared.sort((a, b) => a - b)).toEqual(
      Array.from({ length: CHILDREN * PUTS }, (_, i) => i + 1),
    );
    // Racing slot creation: one scope, one name, every put landed as its own version.
    for (let f = 0; f < FRESH_SCOPES; f++) {
      const versions = reported
        .filter(
          (r) => r.kind === "fresh" && r.scope.kind === "session" && r.scope.session === `s${f}`,
        )
        .map((r) => r.version)
        .sort((a, b) => a - b);
      expect(versions).toEqual(Array.from({ length: CHILDREN }, (_, i) => i + 1));
    }

    const everyVersion = Array.from({ length: CHILDREN * PUTS }, (_, i) => i + 1);
    expect((await early.head(sharedScope, "one/name")).version).toBe(CHILDREN * PUTS);
    const earlyPage = await early.listVersions(sharedScope, "one/name");
    expect(earlyPage.items.map((meta) => meta.version)).toEqual(everyVersion);
    await early.close();

    const service = await FsArtifactService.open({ root: temp.root });
    try {
      const { items } = await service.listVersions(sharedScope, "one/name");
      expect(items.map((meta) => meta.version)).toEqual(
        Array.from({ length: CHILDREN * PUTS }, (_, i) => i + 1),
      );
      for (const meta of items) {
        const artifact = await service.get(sharedScope, "one/name", { version: meta.version });
        const { child, i } = artifact.metadata as { child: number; i: number };
        expect(new TextDecoder().decode(artifact.data)).toBe(`${child}:${i}`);
      }
      const ownScope: Scope = { kind: "app", app: "race-own" };
      expect((await service.listNames(ownScope)).items).toEqual(
        Array.from({ length: CHILDREN }, (_, id) => `own-${id}`).sort(),
      );
      for (let f = 0; f < FRESH_SCOPES; f++) {
        const scope: Scope = { kind: "session", app: "race", user: "fresh", session: `s${f}` };
        const datas = [];
        for (let version = 1; version <= CHILDREN; version++) {
          datas.push(new TextDecoder().decode((await service.get(scope, "x", { version })).data));
        }
        expect(datas.sort()).toEqual(Array.from({ length: CHILDREN }, (_, id) => `${id}`).sort());
      }
    } finally {
      await service.close();
    }

    // The losers of each slot race gave their capacity claims back: one claim per scope and
    // per name, one slot file each, and no staging leftovers.
    const tree = await walk(temp.root);
    const files = (pattern: RegExp) =>
      tree.filter((e) => e.kind === "file" && pattern.test(e.path));
    const scopes = FRESH_SCOPES + 2;
    expect(files(/^scope-claims\/\d+$/)).toHaveLength(scopes);
    expect(files(/^scopes\/[0-9a-f]{64}\.json$/)).toHaveLength(scopes);
    expect(files(/^scopes\/[0-9a-f]{64}\/name-claims\/\d+$/)).toHaveLength(
      FRESH_SCOPES + CHILDREN + 1,
    );
    expect(files(/staging\//)).toEqual([]);
    const ownDigest = scopeDigest({ kind: "app", app: "race-own" });
    expect(files(new RegExp(`^scopes/${ownDigest}/names/[0-9a-f]{64}\\.json$`))).toHaveLength(
      CHILDREN,
    );
  });

  it(`${CHILDREN} processes create names in one scope at once, racing the name index's compactions`, async () => {
    const temp = await tempRoot("names-race");
    cleanup = temp.cleanup;
    const children = Array.from({ length: CHILDREN }, (_, id) =>
      startChild("names-race-child.mjs", [temp.root, String(id), String(NAMES_EACH)]),
    );
    await Promise.all(children.map((child) => child.waitFor("ready")));
    for (const child of children) child.process.stdin?.write("go\n");
    const created: string[] = [];
    for (const { lines, code } of await Promise.all(children.map((child) => child.done))) {
      expect(lines.filter((line) => line.startsWith("missing"))).toEqual([]);
      expect(code).toBe(0);
      created.push(
        ...lines.filter((line) => line.startsWith("done ")).map((line) => line.slice(5)),
      );
    }
    expect(created).toHaveLength(CHILDREN * NAMES_EACH);
    const service = await FsArtifactService.open({ root: temp.root });
    try {
      const scope: Scope = { kind: "app", app: "names-race" };
      const listed: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await service.listNames(
          scope,
          cursor === undefined ? { limit: 50 } : { limit: 50, cursor },
        );
        listed.push(...page.items);
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      expect(listed).toEqual([...created].sort(compareUtf8));
    } finally {
      await service.close();
    }
    const tree = await walk(temp.root);
    const generations = tree.filter((entry) => /\/name-index\/\d+\.idx$/.test(entry.path));
    expect(generations.length).toBeGreaterThan(0);
    expect(generations.length).toBeLessThanOrEqual(3);
    expect(tree.filter((entry) => entry.kind === "file" && /staging\//.test(entry.path))).toEqual(
      [],
    );
  });
});
