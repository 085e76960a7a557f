import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, constants, openSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BIN, cli, withTempDir } from "./support/cli.js";

// Issue 33.10: `artifact-kit demo | head -1` crashed with an EPIPE stack trace and exit 1.

const scope = ["--app", "pipes", "--user", "u"];

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

function ended(child: ReturnType<typeof spawn>): Promise<Ended> {
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve) => {
    child.on("close", (code, signal) => resolve({ code, signal, stderr }));
  });
}

/**
 * Runs the CLI with a standard output whose reader has gone before it starts: a FIFO opened
 * for reading and writing, then closed for reading, so the CLI's first write fails with EPIPE
 * (no race with a reader that might still be reading).
 */
async function withReaderGone(args: readonly string[], cwd: string): Promise<Ended> {
  const fifo = join(cwd, `out-${randomBytes(4).toString("hex")}.fifo`);
  execFileSync("mkfifo", [fifo]);
  const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
  const writer = openSync(fifo, constants.O_WRONLY);
  closeSync(reader);
  try {
    return await ended(
      spawn(process.execPath, [BIN, ...args], { cwd, stdio: ["ignore", writer, "pipe"] }),
    );
  } finally {
    closeSync(writer);
  }
}

describe("every command ends quietly, exit 0, when its reader goes away", () => {
  it("demo, ls, versions, info, stats and get -o -, as text and as --json", async () => {
    await withTempDir(async (cwd) => {
      await writeFile(join(cwd, "a.txt"), "some bytes");
      expect((await cli(["put", "a.txt", "a.txt", ...scope], { cwd })).code).toBe(0);
      const commands = [
        ["demo"],
        ["ls", ...scope],
        ["versions", "a.txt", ...scope],
        ["info", "a.txt", ...scope],
        ["stats", ...scope],
        ["get", "a.txt", "-o", "-", ...scope],
        ["--version"],
      ];
      for (const args of commands) {
        for (const json of [[], ["--json"]]) {
          const run = await withReaderGone([...args, ...json], cwd);
          expect({ args: [...args, ...json], ...run }).toEqual({
            args: [...args, ...json],
            code: 0,
            signal: null,
            stderr: "",
          });
        }
      }
    });
  });

  it("get -o - of a large artifact, its reader leaving after the first chunk", async () => {
    await withTempDir(async (cwd) => {
      // Far over a pipe's buffer, so the CLI is still writing when the reader leaves.
      await writeFile(join(cwd, "big.bin"), randomBytes(8 * 1024 * 1024));
      expect((await cli(["put", "big", "big.bin", ...scope], { cwd })).code).toBe(0);
      const child = spawn(process.execPath, [BIN, "get", "big", "-o", "-", ...scope], { cwd });
      child.stdout.once("data", () => child.stdout.destroy());
      const run = await ended(child);
      expect(run).toEqual({ code: 0, signal: null, stderr: "" });
    });
  });

  it("a failure keeps its exit code when the reader of its --json report has gone", async () => {
    await withTempDir(async (cwd) => {
      await writeFile(join(cwd, "a.txt"), "some bytes");
      expect((await cli(["put", "a.txt", "a.txt", ...scope], { cwd })).code).toBe(0);
      const run = await withReaderGone(["info", "missing", "--json", ...scope], cwd);
      expect(run).toEqual({ code: 3, signal: null, stderr: "" });
    });
  });
});
