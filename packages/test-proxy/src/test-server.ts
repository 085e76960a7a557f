import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** A test server: named by a variable, or started by its package's start script. */
export interface TestServerOptions {
  /** The variable that names a running server, and that the script prints, e.g. S3_ENDPOINT. */
  readonly variable: string;
  /** The variable's value as the caller reads it (default: the environment's). */
  readonly given?: string | undefined;
  /** The package's start script: the interface of scripts/lib/test-server.sh. */
  readonly script: string;
  /** The variable that gives the script a state folder of its own, e.g. MOTO_STATE_DIR. */
  readonly stateDirVariable: string;
  /** Resolves when the server that `value` names answers; rejects with why not. */
  answers(value: string): Promise<void>;
}

/**
 * Uses the server `variable` names, or starts one with the package's start script in a state
 * folder of its own and stops it with `stop`. No server is a failed run, never a skipped one:
 * every test of a package that calls this talks to it.
 */
export async function startTestServer(
  options: TestServerOptions,
): Promise<{ value: string; stop(): Promise<void> }> {
  const given = "given" in options ? options.given : process.env[options.variable];
  if (given) {
    await expectAnswer(options, given);
    return { value: given, stop: async () => {} };
  }
  const stateDir = await mkdtemp(join(tmpdir(), "artifact-kit-server-"));
  const env = { ...process.env, [options.stateDirVariable]: stateDir };
  const stop = async () => {
    await run("bash", [options.script, "--stop"], { env });
    await rm(stateDir, { recursive: true, force: true });
  };
  const { stdout } = await run("bash", [options.script], { env, timeout: 540_000 });
  const printed = new RegExp(`^export ${options.variable}='?(.*?)'?$`, "m").exec(stdout)?.[1];
  try {
    if (!printed) throw new Error(`${options.script} printed no ${options.variable}:\n${stdout}`);
    await expectAnswer(options, printed);
    return { value: printed, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * A vitest global setup (its default export) for one test server: provides the server's
 * value under `key`, and returns the teardown that stops what it started.
 */
export function testServerSetup<K extends string>(key: K, options: TestServerOptions) {
  return async (project: { provide(key: K, value: string): void }) => {
    const server = await startTestServer(options);
    project.provide(key, server.value);
    return server.stop;
  };
}

async function expectAnswer(options: TestServerOptions, value: string): Promise<void> {
  try {
    await options.answers(value);
  } catch (error) {
    // The value may hold a key (a connection string): the message names the variable only.
    throw new Error(`the server ${options.variable} names does not answer`, { cause: error });
  }
}

/** Resolves when an HTTP GET of `url` gets an answer that `accept` takes. */
export async function httpAnswers(url: string, accept: (status: number) => boolean) {
  const response = await fetch(url);
  if (!accept(response.status)) throw new Error(`status ${response.status} from ${url}`);
}
