import { type ChildProcess, execFile, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const worker = fileURLToPath(new URL("./worker.mjs", import.meta.url));

/** Runs a worker to completion and parses what it printed. */
export async function runWorker<T>(args: readonly string[]): Promise<T> {
  const { stdout } = await promisify(execFile)(process.execPath, [worker, ...args], {
    timeout: 300_000, // a hang's limit: a loaded machine runs workers several times slower
  });
  return JSON.parse(stdout) as T;
}

/** Starts a worker and resolves once it prints `ready`. */
export function startWorker(args: readonly string[]): Promise<ChildProcess> {
  const child = spawn(process.execPath, [worker, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let errors = "";
  child.stderr?.on("data", (data) => {
    errors += String(data);
  });
  return new Promise((resolve, reject) => {
    child.stdout?.on("data", (data) => {
      if (String(data).includes("ready")) resolve(child);
    });
    child.once("exit", (code) => reject(new Error(`worker exited (${code}) early: ${errors}`)));
  });
}

/** SIGKILLs a worker and waits until it is gone. */
export async function kill(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  await exited;
}
