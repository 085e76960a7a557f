import { spawn } from "node:child_process";
import { mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ReadOnlyFile } from "../src/read-only-file.js";
import { FIXTURES } from "./processes.js";

describe("ReadOnlyFile", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "artifact-kit-read-only-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("reads at a position, stats, and closes once however often it is asked", async () => {
    const path = join(dir, "file");
    await writeFile(path, "0123456789");
    const file = await ReadOnlyFile.open(path);
    if (!file) throw new Error("the file is there");
    const buffer = Buffer.alloc(6, "-");
    expect(await file.read(buffer, 1, 4, 3)).toEqual({ bytesRead: 4 });
    expect(buffer.toString()).toBe("-3456-");
    expect(await file.read(buffer, 0, 6, 8)).toEqual({ bytesRead: 2 });
    expect((await file.stat()).size).toBe(10);
    await file.close();
    await file.close();
    await expect(file.stat()).rejects.toMatchObject({ code: "EBADF" });
  });

  it("answers undefined for an absent file and refuses to follow a symbolic link", async () => {
    expect(await ReadOnlyFile.open(join(dir, "absent"))).toBeUndefined();
    await writeFile(join(dir, "target"), "x");
    await symlink(join(dir, "target"), join(dir, "link"));
    await expect(ReadOnlyFile.open(join(dir, "link"))).rejects.toMatchObject({ code: "ELOOP" });
  });

  it("closes a file its reader dropped once it is collected, with a warning", async () => {
    const path = join(dir, "dropped");
    await writeFile(path, "x");
    const child = spawn(
      process.execPath,
      ["--expose-gc", join(FIXTURES, "dropped-file-child.mjs"), path],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
    });
    const code = await new Promise((resolve) => child.on("close", resolve));
    expect(code).toBe(0);
    expect(output).toMatch(/^fd \d+\n/);
    expect(output).toContain(
      `warning an fs store file was closed by the garbage collector: ${path}\n`,
    );
    expect(output.endsWith("closed\n")).toBe(true);
  });
});
