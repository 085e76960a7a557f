import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const FIXTURES = fileURLToPath(new URL("./fixtures/", import.meta.url));

export interface Child {
  readonly process: ChildProcess;
  readonly lines: string[];
  /** Resolves once a stdout line equal to `line` arrives (rejects if the child exits first). */
  waitFor(line: string): Promise<void>;
  readonly done: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts a fixture script as its own Node process, collecting stdout by line. */
export function startChild(script: string, args: readonly string[]): Child {
  const child = spawn(process.execPath, [join(FIXTURES, script), ...args], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const lines: string[] = [];
  const waiters: { line: string; resolve: () => void }[] = [];
  let partial = "";
  child.stdout?.setEncoding("utf8");
  child.stdout?.on("data", (chunk: string) => {
    const parts = (partial + chunk).split("\n");
    partial = parts.pop() ?? "";
    for (const line of parts) {
      lines.push(line);
      for (const waiter of waiters.filter((each) => each.line === line)) waiter.resolve();
    }
  });
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(
    (resolve, reject) => {
      child.on("error", reject);
      child.on("close", (code, signal) => resolve({ code, signal }));
    },
  );
  return {
    process: child,
    lines,
    done,
    waitFor: (line) =>
      new Promise((resolve, reject) => {
        if (lines.includes(line)) return resolve();
        waiters.push({ line, resolve });
        done.then(() => reject(new Error(`the child exited before printing "${line}"`)));
      }),
  };
}

export async function tempDirs(prefix: string) {
  const base = await mkdtemp(join(tmpdir(), `effects-${prefix}-`));
  await mkdir(join(base, "store"));
  return {
    store: join(base, "store"),
    journal: join(base, "journal"),
    cleanup: () => rm(base, { recursive: true, force: true }),
  };
}
