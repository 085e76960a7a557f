import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fsArtifactPaths } from "@artifact-kit/fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli, cliJson } from "./support/cli.js";

// Every test spawns the built CLI against a real fs store in a temporary directory.

let cwd: string;
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), "artifact-kit-cli-fs-"));
});
afterAll(async () => {
  await rm(cwd, { recursive: true, force: true });
});

const alice = ["--app", "demo", "--user", "alice"];
const bob = ["--app", "demo", "--user", "bob"];

describe("put, get, info, versions, ls", () => {
  it("round-trips a file larger than the progress threshold through streaming transfer", async () => {
    const file = join(cwd, "big.bin");
    const data = randomBytes(6 * 1024 * 1024 + 7);
    await writeFile(file, data);
    const put = await cliJson(
      ["put", "big.bin", file, ...alice, "--mime", "application/x-big", "--meta", "k=v"],
      { cwd },
    );
    expect(put.code).toBe(0);
    expect(put.body).toMatchObject({
      name: "big.bin",
      version: 1,
      size: data.byteLength,
      mimeType: "application/x-big",
      metadata: { k: "v" },
      scope: { kind: "user", app: "demo", user: "alice" },
      streamed: true,
    });
    const out = join(cwd, "big.out");
    const got = await cliJson(["get", "big.bin@1", "-o", out, ...alice], { cwd });
    expect(got.code).toBe(0);
    expect(got.body).toMatchObject({
      version: 1,
      sha256: put.body.sha256,
      file: out,
      streamed: true,
    });
    expect(Buffer.compare(await readFile(out), data)).toBe(0);
  });

  it("allocates versions, pins and lists them, metadata only", async () => {
    const file = join(cwd, "note.txt");
    for (const text of ["one", "two", "three"]) {
      await writeFile(file, text);
      expect((await cli(["put", "notes/a.txt", file, ...alice], { cwd })).code).toBe(0);
    }
    const info = await cliJson(["info", "notes/a.txt@2", ...alice], { cwd });
    expect(info.body).toMatchObject({ version: 2, size: 3, mimeType: "application/octet-stream" });
    const latest = await cliJson(["info", "notes/a.txt", ...alice], { cwd });
    expect(latest.body.version).toBe(3);

    const page = await cliJson<{ items: { version: number }[]; nextCursor?: number }>(
      ["versions", "notes/a.txt", "--limit", "2", ...alice],
      { cwd },
    );
    expect(page.body.items.map((m) => m.version)).toEqual([1, 2]);
    expect(page.body.nextCursor).toBe(2);
    expect(page.body.items[0]).not.toHaveProperty("data");
    const rest = await cliJson<{ items: { version: number }[] }>(
      ["versions", "notes/a.txt", "--cursor", "2", ...alice],
      { cwd },
    );
    expect(rest.body.items.map((m) => m.version)).toEqual([3]);

    const names = await cliJson<{ items: string[]; nextCursor?: string }>(
      ["ls", "--limit", "1", ...alice],
      { cwd },
    );
    expect(names.body).toMatchObject({ items: ["big.bin"], nextCursor: "big.bin" });
    const all = await cliJson<{ items: string[] }>(["ls", "--all", ...alice], { cwd });
    expect(all.body.items).toEqual(["big.bin", "notes/a.txt"]);
    const human = await cli(["ls", ...alice], { cwd });
    expect(human.stdout).toBe("big.bin\nnotes/a.txt\n");
  });

  it("keeps scopes apart", async () => {
    const bobs = await cliJson<{ items: string[] }>(["ls", ...bob], { cwd });
    expect(bobs).toMatchObject({ code: 0, body: { items: [] } });
  });
});

describe("failures: exit code, code and message, nothing changed", () => {
  it("not_found is exit 3, printed as its code, without a stack trace", async () => {
    const out = join(cwd, "missing.out");
    const human = await cli(["get", "nope.txt", "-o", out, ...alice], { cwd });
    expect(human.code).toBe(3);
    expect(human.stderr).toMatch(/^artifact-kit: not_found: /);
    expect(human.stderr).not.toMatch(/\n\s+at /);
    await expect(readFile(out)).rejects.toThrow(/ENOENT/);
    const json = await cliJson(["info", "nope.txt", ...alice], { cwd });
    expect(json).toMatchObject({ code: 3, body: { error: { code: "not_found" } } });
    const verbose = await cli(["info", "nope.txt", "--verbose", ...alice], { cwd });
    expect(verbose.stderr).toMatch(/\n\s+at /);
  });

  it("bad arguments are exit 2 and write nothing", async () => {
    const before = await cliJson(["stats", ...alice], { cwd });
    const cases: string[][] = [
      ["rm", "notes/a.txt", ...alice], // no selector
      ["put", "../x", join(cwd, "note.txt"), ...alice],
      ["put", "x", join(cwd, "no-such-file"), ...alice],
      ["put", "x", join(cwd, "note.txt"), "--meta", "novalue", ...alice],
      ["ls", "--app", "demo", "--session", "s"],
      ["ls", "--limit", "0", ...alice],
      ["ls", "--app", "a".repeat(257)],
      ["ls", "--store", "ftp://bucket", ...alice],
      ["nonsense"],
    ];
    const results = await Promise.all(cases.map((args) => cli(args, { cwd })));
    expect(results.map((result) => result.code)).toEqual(cases.map(() => 2));
    const invalid = await cliJson(["put", "../x", join(cwd, "note.txt"), ...alice], { cwd });
    expect(invalid.body).toMatchObject({
      error: { code: "invalid_argument", detail: { field: "name" } },
    });
    expect((await cliJson(["stats", ...alice], { cwd })).body).toEqual(before.body);
  });
});

describe("rm, rm-scope, stats", () => {
  it("rm deletes one version, latest, then all", async () => {
    expect((await cliJson(["rm", "notes/a.txt@1", ...alice], { cwd })).body).toMatchObject({
      name: "notes/a.txt",
      selector: 1,
      deleted: true,
    });
    expect((await cli(["rm", "notes/a.txt@1", ...alice], { cwd })).code).toBe(3);
    expect((await cli(["rm", "notes/a.txt@latest", ...alice], { cwd })).code).toBe(0);
    const left = await cliJson<{ items: { version: number }[] }>(
      ["versions", "notes/a.txt", ...alice],
      { cwd },
    );
    expect(left.body.items.map((m) => m.version)).toEqual([2]);
    expect((await cli(["rm", "notes/a.txt@all", ...alice], { cwd })).code).toBe(0);
    expect((await cliJson<{ items: string[] }>(["ls", ...alice], { cwd })).body.items).toEqual([
      "big.bin",
    ]);
  });

  it("rm-scope needs the token of its dry run, and deletes that exact scope only", async () => {
    const file = join(cwd, "note.txt");
    await writeFile(file, "bob's");
    await cli(["put", "b.txt", file, ...bob], { cwd });
    const stats = await cliJson(["stats", ...alice], { cwd });
    expect(stats.body).toMatchObject({ names: 1, versions: 1, bytes: 6 * 1024 * 1024 + 7 });

    const dry = await cliJson<{ dryRun: boolean; confirm: string; names: number }>(
      ["rm-scope", ...alice],
      { cwd },
    );
    expect(dry).toMatchObject({ code: 0, body: { dryRun: true, names: 1, versions: 1 } });
    expect(dry.body.confirm).toMatch(/^[0-9a-f]{16}$/);

    const wrong = await cliJson(["rm-scope", "--confirm", "0000000000000000", ...alice], { cwd });
    expect(wrong).toMatchObject({
      code: 2,
      body: { error: { code: "invalid_argument", detail: { field: "confirm" } } },
    });
    // Another scope's token is no confirmation for this one.
    const bobsToken = (await cliJson<{ confirm: string }>(["rm-scope", ...bob], { cwd })).body
      .confirm;
    expect((await cli(["rm-scope", "--confirm", bobsToken, ...alice], { cwd })).code).toBe(2);
    expect((await cliJson(["stats", ...alice], { cwd })).body).toEqual(stats.body);

    const done = await cliJson(["rm-scope", "--confirm", dry.body.confirm, ...alice], { cwd });
    expect(done).toMatchObject({ code: 0, body: { dryRun: false, names: 1, versions: 1 } });
    expect((await cliJson(["stats", ...alice], { cwd })).body).toMatchObject({
      names: 0,
      versions: 0,
      bytes: 0,
    });
    expect((await cliJson<{ items: string[] }>(["ls", ...bob], { cwd })).body.items).toEqual([
      "b.txt",
    ]);
  });
});

describe("repair", () => {
  it("removes leftovers, reports corrupt versions with exit 5, and refuses other stores", async () => {
    const file = join(cwd, "note.txt");
    const scope = { kind: "app", app: "repair" } as const;
    await writeFile(file, "x");
    await cli(["put", "kept.txt", file, "--app", "repair"], { cwd });
    await cli(["put", "lost.txt", file, "--app", "repair"], { cwd });
    const root = join(cwd, ".artifacts");
    // An unpublished version file, as a put that crashed before publishing leaves it.
    await writeFile(fsArtifactPaths(root, scope, "kept.txt", 9).reservation, "orphan");
    const clean = await cliJson(["repair", "--min-age-ms", "0"], { cwd });
    expect(clean).toMatchObject({
      code: 0,
      body: { removed: 1, awaitingRetry: 0, corrupt: 0, complete: true },
    });

    // A published version file damaged past reading.
    await writeFile(fsArtifactPaths(root, scope, "lost.txt", 1).metadata, "lost");
    const corrupt = await cliJson(["repair", "--min-age-ms", "0"], { cwd });
    expect(corrupt).toMatchObject({ code: 5, body: { removed: 0, corrupt: 1 } });

    // A directory where an unpublished version file would be: listed, and the walk completes.
    const planted = fsArtifactPaths(root, scope, "kept.txt", 10).reservation;
    await mkdir(join(planted, "inside"), { recursive: true });
    const stuck = await cliJson(["repair", "--min-age-ms", "0"], { cwd });
    expect(stuck.body).toMatchObject({ unremovable: [relative(root, planted)], complete: true });
    const text = await cli(["repair", "--min-age-ms", "0"], { cwd });
    expect(text.stdout).toContain(`UNREMOVABLE: ${relative(root, planted)}`);
    expect((await cli(["repair", "--store", "memory:"], { cwd })).code).toBe(2);
  });
});

describe("demo", () => {
  it("walks through the contract on the fs store", async () => {
    const demo = await cliJson<{ session: string; steps: string[] }>(["demo"], { cwd });
    expect(demo.code).toBe(0);
    expect(demo.body.steps.some((step) => /bob's report.md is untouched/.test(step))).toBe(true);
    expect(demo.body.steps).toContain("   notes.txt now has v1 only");
    expect(
      demo.body.steps.filter((step) => /settled effect .*: compensated$/.test(step)),
    ).toHaveLength(1);
    const session = ["--app", "demo", "--user", "alice", "--session", demo.body.session];
    const names = await cliJson<{ items: string[] }>(["ls", ...session], { cwd });
    expect(names.body.items).toEqual([
      "charts/q1.png",
      "data/ünïcode.csv",
      "notes.txt",
      "report.md",
    ]);
  });
});
