import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import pg from "pg";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
  }
}

const script = fileURLToPath(new URL("../../scripts/start-postgres.sh", import.meta.url));

/**
 * Uses the server named by DATABASE_URL, or starts a throwaway one with
 * scripts/start-postgres.sh and stops it afterwards. No server is a failed run, never a
 * skipped one: every test of this package talks to it.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const given = process.env.DATABASE_URL;
  if (given) {
    await expectAnswer(given);
    project.provide("databaseUrl", given);
    return async () => {};
  }
  const stateDir = await mkdtemp(join(tmpdir(), "artifact-kit-postgres-"));
  const env = { ...process.env, PG_STATE_DIR: stateDir };
  const run = promisify(execFile);
  const { stdout } = await run("bash", [script], { env, timeout: 540_000 });
  const url = /^export DATABASE_URL=(.*)$/m.exec(stdout)?.[1];
  if (!url) throw new Error(`start-postgres.sh printed no DATABASE_URL:\n${stdout}`);
  await expectAnswer(url);
  project.provide("databaseUrl", url);
  return async () => {
    await run("bash", [script, "--stop"], { env });
    await rm(stateDir, { recursive: true, force: true });
  };
}

async function expectAnswer(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    await client.query("SELECT 1");
  } catch (error) {
    throw new Error(`DATABASE_URL=${url} does not answer`, { cause: error });
  } finally {
    await client.end().catch(() => undefined);
  }
}
