import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { lstat, mkdir, readFile, readlink, symlink, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { BIN, cli, cliJson, withTempDir } from "./support/cli.js";

// What a new user trips over: where `get` writes, how big a `put` may be, what --version
// and --help say, what a failure names, and which store URIs are understood.

const scope = ["--app", "usage", "--user", "u"];

/** Runs the CLI with its stdout as a raw byte buffer (the bytes of `get -o -`). */
function cliBytes(args: readonly string[], cwd: string) {
  return new Promise<{ code: number | null; stdout: Buffer; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd });
    const out: Buffer[] = [];
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("close", (code) => resolve({ code, stdout: Buffer.concat(out), stderr }));
  });
}

describe("get writes where it is told, and renames over regular files only", () => {
  it("-o - and -o /dev/stdout write the bytes to standard output; /dev/stdout stays", async () => {
    await withTempDir(async (cwd) => {
      const data = randomBytes(5 * 1024 * 1024); // over the streaming threshold
      await writeFile(join(cwd, "in.bin"), data);
      await writeFile(join(cwd, "small.txt"), "small");
      expect((await cli(["put", "big", "in.bin", ...scope], { cwd })).code).toBe(0);
      expect((await cli(["put", "small", "small.txt", ...scope], { cwd })).code).toBe(0);
      const before = await readlink("/dev/stdout");
      for (const output of ["-", "/dev/stdout"]) {
        const big = await cliBytes(["get", "big", "-o", output, ...scope], cwd);
        expect(big.code, output).toBe(0);
        expect(Buffer.compare(big.stdout, data), output).toBe(0);
        expect(big.stderr, output).toMatch(/^wrote big v1/);
        const small = await cliBytes(["get", "small", "-o", output, "--json", ...scope], cwd);
        expect(small.stdout.toString(), output).toBe("small");
        expect(JSON.parse(small.stderr), output).toMatchObject({ version: 1, size: 5 });
      }
      expect((await lstat("/dev/stdout")).isSymbolicLink()).toBe(true);
      expect(await readlink("/dev/stdout")).toBe(before);
    });
  });

  it("-o a directory is exit 2; -o a link to a file replaces the file and keeps the link", async () => {
    await withTempDir(async (cwd) => {
      await writeFile(join(cwd, "a.txt"), "new bytes");
      await cli(["put", "a.txt", "a.txt", ...scope], { cwd });
      await mkdir(join(cwd, "dir"));
      const intoDir = await cliJson(["get", "a.txt", "-o", "dir", ...scope], { cwd });
      expect(intoDir).toMatchObject({ code: 2, body: { error: { detail: { field: "output" } } } });
      await writeFile(join(cwd, "target.txt"), "old");
      await symlink("target.txt", join(cwd, "link.txt"));
      expect((await cli(["get", "a.txt", "-o", "link.txt", ...scope], { cwd })).code).toBe(0);
      expect((await lstat(join(cwd, "link.txt"))).isSymbolicLink()).toBe(true);
      expect(await readFile(join(cwd, "target.txt"), "utf8")).toBe("new bytes");
    });
  });
});

describe("put checks the size against the store's bound before streaming", () => {
  it("refuses from stat, under a bound the user set", async () => {
    await withTempDir(async (cwd) => {
      const file = join(cwd, "big.bin");
      await writeFile(file, randomBytes(5 * 1024 * 1024));
      const lowered = await cliJson(
        ["put", "big", file, "--max-artifact-bytes", "1000000", ...scope],
        { cwd },
      );
      // The whole size is known only from stat: the CLI refused before any byte moved.
      expect(lowered).toMatchObject({
        code: 4,
        body: { error: { code: "artifact_too_large", detail: { bound: 1_000_000 } } },
      });
      expect(JSON.stringify(lowered.body)).toContain(`${5 * 1024 * 1024} bytes`);
      expect((await cliJson(["stats", ...scope], { cwd })).body).toMatchObject({ versions: 0 });

      // Raised: the same file under a bound from the URI above its size.
      const store = `${pathToFileURL(join(cwd, ".artifacts")).href}?maxArtifactBytes=6000000`;
      const raised = await cliJson(["put", "big", file, "--store", store, ...scope], { cwd });
      expect(raised).toMatchObject({ code: 0, body: { size: 5 * 1024 * 1024 } });
    });
  });

  it("refuses bad bounds as usage errors", async () => {
    await withTempDir(async (cwd) => {
      await writeFile(join(cwd, "a.txt"), "a");
      const dir = pathToFileURL(join(cwd, "s")).href;
      const cases = [
        ["--max-artifact-bytes", "0"],
        ["--max-artifact-bytes", "1e6"],
        ["--max-page-limit", "-1"],
        ["--store", `${dir}?maxArtifactBytes=abc`],
        ["--store", `${dir}?maxArtifactBytes=1&maxArtifactBytes=2`],
        ["--store", `${dir}?quota=1`],
        ["--store", `${dir}?maxArtifactBytes=5`, "--max-artifact-bytes", "6"],
      ];
      const results = await Promise.all(
        cases.map((flags) => cli(["put", "a", "a.txt", ...flags, ...scope], { cwd })),
      );
      expect(results.map((result) => result.code)).toEqual(cases.map(() => 2));
    });
  });
});

describe("--version, --help and messages", () => {
  it("--version prints the package's version", async () => {
    const { version } = createRequire(import.meta.url)("../package.json") as { version: string };
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
    expect(version).not.toBe("0.0.0");
    const result = await cli(["--version"], { cwd: process.cwd() });
    expect(result).toMatchObject({ code: 0, stdout: `${version}\n` });
  });

  it("a scoped command's help shows the scope flags it needs", async () => {
    const commands = ["ls", "get", "put", "rm-scope", "stats"];
    const helps = await Promise.all(
      commands.map((command) => cli([command, "--help"], { cwd: process.cwd() })),
    );
    for (const [index, command] of commands.entries()) {
      const help = helps[index]?.stdout;
      expect(help, command).toContain(
        `Usage: artifact-kit ${command} --app APP [--user USER [--session SESSION]]`,
      );
      expect(help, command).toMatch(/--user <user>/);
    }
    const missing = await cli(["ls"], { cwd: process.cwd() });
    expect(missing.stderr).toContain("--app APP [--user USER [--session SESSION]]");
  });

  it("not_found names the scope and the store; a missing root names its path", async () => {
    await withTempDir(async (cwd) => {
      await writeFile(join(cwd, "a.txt"), "a");
      await cli(["put", "a.txt", "a.txt", ...scope], { cwd });
      const missing = await cli(["info", "nope.txt", ...scope], { cwd });
      expect(missing.code).toBe(3);
      expect(missing.stderr).toContain('app "usage" user "u"');
      expect(missing.stderr).toContain(join(cwd, ".artifacts"));
      const noRoot = await cli(["ls", "--store", "fs:elsewhere", ...scope], { cwd });
      expect(noRoot.code).toBe(2);
      expect(noRoot.stderr).toContain(join(cwd, "elsewhere"));
      expect(noRoot.stderr).toContain("does not exist");
    });
  });
});

describe("ADK-style store URIs", () => {
  it("file:///PATH is the fs store at PATH, memory:// the memory store", async () => {
    await withTempDir(async (cwd) => {
      await writeFile(join(cwd, "a.txt"), "a");
      const file = pathToFileURL(join(cwd, "store")).href;
      expect((await cli(["put", "a.txt", "a.txt", "--store", file, ...scope], { cwd })).code).toBe(
        0,
      );
      const listed = await cliJson<{ items: string[] }>(
        ["ls", "--store", `fs:${join(cwd, "store")}`, ...scope],
        { cwd },
      );
      expect(listed.body.items).toEqual(["a.txt"]);
      const demo = await cliJson(["demo", "--store", "memory://"], { cwd });
      expect(demo.code).toBe(0);
      const bad = ["file://host/x", "memory://x", "gs://", "file:///"];
      const refused = await Promise.all(
        bad.map((store) => cli(["ls", "--store", store, ...scope], { cwd })),
      );
      expect(refused.map((result) => result.code)).toEqual(bad.map(() => 2));
    });
  });
});
