import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { BIN } from "./cli.js";

/**
 * Runs the CLI and kills it with SIGKILL as soon as its progress (stderr lines) reports
 * its `after`-th copied version: no clock decides when. Resolves to how many versions the
 * lines reported copied, and how the process ended.
 */
export function copyKilledAfter(
  args: readonly string[],
  after: number,
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<{ copied: number; signal: NodeJS.Signals | null; code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args, "--progress", "lines"], {
      cwd: options.cwd,
      env: options.env,
      stdio: ["ignore", "ignore", "pipe"],
    });
    let copied = 0;
    const lines: string[] = [];
    createInterface({ input: child.stderr }).on("line", (line) => {
      lines.push(line);
      if (/^copy: \d+\/\d+ copied /.test(line)) {
        copied += 1;
        if (copied === after) child.kill("SIGKILL");
      }
    });
    child.on("error", reject);
    child.on("close", (code, signal) =>
      resolve({ copied, signal, code, stderr: lines.slice(-20).join("\n") }),
    );
  });
}
