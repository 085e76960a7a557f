import { type ChildProcess, spawn } from "node:child_process";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const FIXTURES = fileURLToPath(new URL("./fixtures/", import.meta.url));

export interface Child {
  readonly process: ChildProcess;
  /**
   * Resolves with the `nth` stdout line (the first by default) equal to or starting with
   * `prefix`: an event to act on, such as a kill right after the child's Nth acknowledgement.
   */
  waitFor(prefix: string, nth?: number): Promise<string>;
  /** Resolves with every stdout line and the exit status once the process is gone. */
  readonly done: Promise<{ lines: string[]; code: number | null; signal: string | null }>;
}

/** Starts a fixture script as a separate Node process, collecting its stdout by line. */
export function startChild(script: string, args: readonly string[]): Child {
  const child = spawn(process.execPath, [join(FIXTURES, script), ...args], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const lines: string[] = [];
  const waiters: { prefix: string; left: number; resolve: (line: string) => void }[] = [];
  let partial = "";
  child.stdout?.setEncoding("utf8");
  child.stdout?.on("data", (chunk: string) => {
    const parts = (partial + chunk).split("\n");
    partial = parts.pop() ?? "";
    for (const line of parts) {
      lines.push(line);
      for (const waiter of waiters.splice(0)) {
        if (line.startsWith(waiter.prefix) && --waiter.left === 0) waiter.resolve(line);
        else waiters.push(waiter);
      }
    }
  });
  const done = new Promise<{ lines: string[]; code: number | null; signal: string | null }>(
    (resolve, reject) => {
      child.on("error", reject);
      child.on("close", (code, signal) => resolve({ lines, code, signal }));
    },
  );
  return {
    process: child,
    done,
    waitFor: (prefix, nth = 1) =>
      new Promise((resolve, reject) => {
        const seen = lines.filter((line) => line.startsWith(prefix));
        if (seen.length >= nth) return resolve(seen[nth - 1] as string);
        waiters.push({ prefix, left: nth - seen.length, resolve });
        done.then(() => reject(new Error(`the child exited before printing "${prefix}"`)));
      }),
  };
}

export interface TreeEntry {
  /** Path relative to the walked directory, with "/" separators. */
  readonly path: string;
  readonly kind: "file" | "dir" | "symlink" | "other";
}

/** Every entry under `dir`, depth first (symbolic links are reported, not followed). */
export async function walk(dir: string, prefix = ""): Promise<TreeEntry[]> {
  const found: TreeEntry[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    const kind = entry.isSymbolicLink()
      ? "symlink"
      : entry.isDirectory()
        ? "dir"
        : entry.isFile()
          ? "file"
          : "other";
    found.push({ path, kind });
    if (kind === "dir") found.push(...(await walk(join(dir, entry.name), path)));
  }
  return found;
}
