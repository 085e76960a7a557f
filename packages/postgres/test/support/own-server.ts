import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import pg from "pg";

// A PostgreSQL server of the test's own (scripts/start-postgres.sh in a state folder of its
// own), for trials that kill and restart it: the shared server of the other tests is never
// touched. It is a failed run, never a skipped one, when the script cannot start it.

const run = promisify(execFile);
const script = fileURLToPath(new URL("../../scripts/start-postgres.sh", import.meta.url));
const PG_BIN = process.env.PG_BIN ?? "/usr/lib/postgresql/15/bin";

export interface OwnServer {
  readonly url: string;
  /** SIGKILLs the postmaster and every process it started, and waits until they are gone. */
  kill(): Promise<void>;
  /** SIGKILLs one backend: the postmaster then ends every connection and recovers. */
  killBackend(pid: number): Promise<void>;
  /** SIGSTOPs the postmaster and every process it started: a server that froze. */
  freeze(): Promise<void>;
  /** SIGCONTs what freeze stopped. */
  thaw(): Promise<void>;
  /** Starts the killed server again on its data and port, and waits until it answers. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export async function startOwnServer(): Promise<OwnServer> {
  const stateDir = await mkdtemp(join(tmpdir(), "ak-own-postgres-"));
  const env = { ...process.env, PG_STATE_DIR: stateDir };
  const { stdout } = await run("bash", [script], { env, timeout: 540_000 });
  const url = /^export DATABASE_URL=(.*)$/m.exec(stdout)?.[1];
  const port = /^export PG_PORT=(.*)$/m.exec(stdout)?.[1];
  if (!url || !port) throw new Error(`start-postgres.sh printed no DATABASE_URL:\n${stdout}`);
  const data = join(stateDir, "data");
  const asOwner = (command: string, args: string[]) =>
    process.getuid?.() === 0
      ? run("runuser", ["-u", "postgres", "--", command, ...args])
      : run(command, args);
  const postmaster = async () =>
    Number((await readFile(join(data, "postmaster.pid"), "utf8")).split("\n")[0]);
  let frozen: number[] = [];
  return {
    url,
    async kill() {
      const parent = await postmaster();
      const children = await childrenOf(parent);
      for (const pid of [parent, ...children]) signal(pid, "SIGKILL");
      for (const pid of [parent, ...children]) await gone(pid);
      // The killed postmaster may stay a zombie (its parent, pg_ctl, is gone), which the next
      // start would take for a live server holding the lock files: it is dead, so remove them.
      await rm(join(data, "postmaster.pid"), { force: true });
      await rm(join(stateDir, `.s.PGSQL.${port}.lock`), { force: true });
    },
    async freeze() {
      const parent = await postmaster();
      frozen = [parent, ...(await childrenOf(parent))];
      for (const pid of frozen) signal(pid, "SIGSTOP");
    },
    async thaw() {
      for (const pid of frozen) signal(pid, "SIGCONT");
      frozen = [];
    },
    async killBackend(pid) {
      signal(pid, "SIGKILL");
      await gone(pid);
    },
    async restart() {
      const log = join(stateDir, "postgres.log");
      await asOwner(`${PG_BIN}/pg_ctl`, [
        "start",
        "-D",
        data,
        "-w",
        "-t",
        "120",
        "-s",
        "-l",
        log,
        "-o",
        `-c listen_addresses=127.0.0.1 -c port=${port} -c unix_socket_directories='${stateDir}' -c fsync=off -c max_connections=200`,
      ]).catch(async (error: Error) => {
        const tail = (await readFile(log, "utf8").catch(() => "")).split("\n").slice(-15);
        throw new Error(`${error.message}\n${tail.join("\n")}`);
      });
      await answers(url);
    },
    async stop() {
      await run("bash", [script, "--stop"], { env }).catch(() => undefined);
      await rm(stateDir, { recursive: true, force: true });
    },
  };
}

/** Resolves once a new connection can run a statement (the server finished recovery). */
export async function answers(url: string): Promise<void> {
  for (let tries = 0; ; tries++) {
    const client = new pg.Client({ connectionString: url });
    client.on("error", () => undefined);
    try {
      await client.connect();
      await client.query("SELECT 1");
      return;
    } catch (error) {
      // Recovery after a crash refuses connections for a moment: each try is an event (a
      // refusal), bounded so that a server that never comes back fails the test.
      if (tries >= 600) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
  }
}

/** Resolves once no process `pid` exists (zombies of the killed postmaster included). */
async function gone(pid: number): Promise<void> {
  for (;;) {
    try {
      const stat = await readFile(`/proc/${pid}/stat`, "utf8");
      // A zombie is gone for our purpose: it holds no port, socket or shared memory.
      if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) return;
    } catch {
      return;
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** The processes whose parent is `parent` (read from /proc). */
async function childrenOf(parent: number): Promise<number[]> {
  const children: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => "");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[1]) === parent) children.push(Number(entry));
  }
  return children;
}
