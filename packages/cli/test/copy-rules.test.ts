import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { ArtifactService } from "@artifact-kit/core";
import { describe, expect, it } from "vitest";
import { openStore, parseStoreUri } from "../src/store.js";
import { cli, cliJson, withTempDir } from "./support/cli.js";

// `artifact-kit copy` between fs stores: what it refuses, what it restricts to, and how a
// failed version keeps the target's order (the round trip over every backend is copy.test.ts).

const app = { kind: "app", app: "rules" } as const;
const bytes = (text: string) => new TextEncoder().encode(text);

async function withFs<T>(root: string, body: (service: ArtifactService) => Promise<T>) {
  const service = await openStore(parseStoreUri(`fs:${root}`), { create: true });
  try {
    return await body(service);
  } finally {
    await service.close();
  }
}

interface Record {
  name: string;
  sourceVersion: number;
  targetVersion?: number;
  outcome: string;
  code?: string;
}
interface Body {
  copied: number;
  skipped: number;
  failed: number;
  versions: Record[];
}

const copyJson = (args: string[], cwd: string) =>
  cliJson<Body>(["copy", ...args, "--progress", "none"], { cwd });

describe("artifact-kit copy: arguments", () => {
  it("needs scopes, refuses one store as both ends, and a malformed scope", async () => {
    await withTempDir(async (cwd) => {
      const none = await cli(["copy", "fs:a", "fs:b"], { cwd });
      expect(none.code).toBe(2);
      expect(none.stderr).toContain("stores cannot list them");
      const same = await cli(["copy", "fs:a", `fs:${join(cwd, "a")}`, "--scope", "x"], { cwd });
      expect([same.code, same.stderr]).toEqual([2, expect.stringContaining("one store")]);
      for (const scope of ["x/%zz", "a/b/c/d", "a//b"]) {
        const bad = await cliJson(["copy", "fs:a", "fs:b", "--scope", scope], { cwd });
        expect(bad.body).toMatchObject({ error: { code: "invalid_argument" } });
      }
      for (const concurrency of ["0", "65", "two"]) {
        const bad = await cliJson(
          ["copy", "fs:a", "fs:b", "--scope", "x", "--concurrency", concurrency],
          { cwd },
        );
        expect(bad.body).toMatchObject({ error: { code: "invalid_argument" } });
      }
      const missing = await cli(["copy", "fs:a", "fs:b", "--scopes-file", "none.txt"], { cwd });
      expect([missing.code, missing.stderr]).toEqual([2, expect.stringContaining("none.txt")]);
    });
  });

  it("takes scopes from a file (%2F in ids, comments) and only names under --prefix", async () => {
    await withTempDir(async (cwd) => {
      const ada = { kind: "user", app: "rules", user: "ada/l" } as const;
      await withFs(join(cwd, "src"), async (source) => {
        for (const scope of [app, ada]) {
          for (const name of ["keep/a", "keep/b", "other"]) {
            await source.put(scope, name, bytes(name));
          }
        }
      });
      await writeFile(join(cwd, "scopes.txt"), "# scopes to move\nrules\n\nrules/ada%2Fl\n");
      const copy = await copyJson(
        ["fs:src", "fs:dst", "--scopes-file", "scopes.txt", "--prefix", "keep/"],
        cwd,
      );
      expect(copy.code).toBe(0);
      expect(copy.body).toMatchObject({ copied: 4, skipped: 0, failed: 0 });
      await withFs(join(cwd, "dst"), async (target) => {
        for (const scope of [app, ada]) {
          expect((await target.listNames(scope)).items).toEqual(["keep/a", "keep/b"]);
        }
      });
    });
  });
});

describe("artifact-kit copy: names at once", () => {
  it("copies many names at once, each name's versions in order", async () => {
    await withTempDir(async (cwd) => {
      const names = Array.from({ length: 12 }, (_, index) => `n/${index}`);
      await withFs(join(cwd, "src"), async (source) => {
        for (let round = 1; round <= 3; round += 1) {
          for (const name of names) await source.put(app, name, bytes(`${name} ${round}`));
        }
      });
      const copy = await copyJson(
        ["fs:src", "fs:dst", "--scope", "rules", "--concurrency", "8"],
        cwd,
      );
      expect(copy.body).toMatchObject({ copied: 36, failed: 0, renumbered: 0 });
      await withFs(join(cwd, "dst"), async (target) => {
        for (const name of names) {
          const versions = await Promise.all(
            [1, 2, 3].map(async (version) => target.get(app, name, { version })),
          );
          expect(versions.map((artifact) => new TextDecoder().decode(artifact.data))).toEqual(
            [1, 2, 3].map((round) => `${name} ${round}`),
          );
        }
      });
    });
  });
});

describe("artifact-kit copy: a failed version keeps the target's order", () => {
  it("holds back the later versions of a name whose version failed, and a rerun completes them in order", async () => {
    await withTempDir(async (cwd) => {
      const sizes = [10, 3000, 20, 30];
      await withFs(join(cwd, "src"), async (source) => {
        for (const size of sizes) await source.put(app, "log", new Uint8Array(size).fill(size));
        await source.put(app, "small", bytes("fits"));
      });
      const bounded = `${pathToFileURL(join(cwd, "dst")).href}?maxArtifactBytes=1000`;
      const cut = await copyJson(["fs:src", bounded, "--scope", "rules"], cwd);
      expect(cut.code).toBe(4);
      // Names are copied at once, so records of different names interleave: by name here.
      const byName = cut.body.versions.toSorted((a, b) =>
        a.name === b.name ? a.sourceVersion - b.sourceVersion : a.name < b.name ? -1 : 1,
      );
      expect(byName.map((record) => [record.name, record.outcome, record.code])).toEqual([
        ["log", "copied", undefined],
        ["log", "failed", "artifact_too_large"],
        ["log", "failed", "held_back"],
        ["log", "failed", "held_back"],
        ["small", "copied", undefined],
      ]);
      const rest = await copyJson(["fs:src", "fs:dst", "--scope", "rules", "--reread"], cwd);
      expect(rest.code).toBe(0);
      expect(rest.body).toMatchObject({ copied: 3, skipped: 2, failed: 0 });
      await withFs(join(cwd, "dst"), async (target) => {
        const versions = (await target.listVersions(app, "log")).items;
        expect(versions.map((meta) => [meta.version, meta.size])).toEqual(
          sizes.map((size, index) => [index + 1, size]),
        );
      });
    });
  });

  it("refuses to copy a version below one whose copy is already there", async () => {
    await withTempDir(async (cwd) => {
      await withFs(join(cwd, "src"), async (source) => {
        for (const text of ["one", "two"]) await source.put(app, "log", bytes(text));
      });
      expect((await copyJson(["fs:src", "fs:dst", "--scope", "rules"], cwd)).code).toBe(0);
      await withFs(join(cwd, "dst"), (target) => target.delete(app, "log", 1));
      const again = await copyJson(["fs:src", "fs:dst", "--scope", "rules"], cwd);
      expect(again.code).toBe(5);
      expect(again.body.versions.map((record) => [record.outcome, record.code])).toEqual([
        ["failed", "out_of_order"],
        ["skipped", undefined],
      ]);
      await withFs(join(cwd, "dst"), async (target) => {
        expect((await target.listVersions(app, "log")).items.map((meta) => meta.version)).toEqual([
          2,
        ]);
      });
    });
  });

  it("maps source versions with gaps onto the target's numbers", async () => {
    await withTempDir(async (cwd) => {
      await withFs(join(cwd, "src"), async (source) => {
        for (const text of ["a", "b", "c"]) await source.put(app, "log", bytes(text));
        await source.delete(app, "log", 2);
      });
      const copy = await copyJson(["fs:src", "fs:dst", "--scope", "rules"], cwd);
      expect(copy.body).toMatchObject({ copied: 2, renumbered: 1 });
      expect(copy.body.versions.map((r) => [r.sourceVersion, r.targetVersion])).toEqual([
        [1, 1],
        [3, 2],
      ]);
      const human = await cli(
        ["copy", "fs:src", "fs:dst", "--scope", "rules", "--progress", "none"],
        {
          cwd,
        },
      );
      expect(human.stdout).toContain("already there 2");
      expect(human.stdout).toContain("1 copies have another version number");
    });
  });
});
