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
    s3Endpoint: string;
  }
}

const run = promisify(execFile);
const script = (path: string) =>
  fileURLToPath(new URL(`../../../packages/${path}`, import.meta.url));

/**
 * Uses the servers named by DATABASE_URL and S3_ENDPOINT, or starts throwaway ones with the
 * postgres and s3 packages' scripts and stops them afterwards (as those packages' tests do).
 * No server is a failed run, never a skipped one.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const stops: Array<() => Promise<void>> = [];
  const teardown = async () => {
    for (const stop of stops.reverse()) await stop();
  };
  try {
    project.provide("databaseUrl", await postgres(stops));
    project.provide("s3Endpoint", await s3(stops));
  } catch (error) {
    await teardown();
    throw error;
  }
  return teardown;
}

async function postgres(stops: Array<() => Promise<void>>): Promise<string> {
  let url = process.env.DATABASE_URL;
  if (!url) {
    const stateDir = await mkdtemp(join(tmpdir(), "artifact-kit-examples-pg-"));
    const env = { ...process.env, PG_STATE_DIR: stateDir };
    const start = script("postgres/scripts/start-postgres.sh");
    const { stdout } = await run("bash", [start], { env, timeout: 540_000 });
    stops.push(async () => {
      await run("bash", [start, "--stop"], { env });
      await rm(stateDir, { recursive: true, force: true });
    });
    url = /^export DATABASE_URL=(.*)$/m.exec(stdout)?.[1];
    if (!url) throw new Error(`start-postgres.sh printed no DATABASE_URL:\n${stdout}`);
  }
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    await client.query("SELECT 1");
  } catch (error) {
    throw new Error(`DATABASE_URL=${url} does not answer`, { cause: error });
  } finally {
    await client.end().catch(() => undefined);
  }
  return url;
}

async function s3(stops: Array<() => Promise<void>>): Promise<string> {
  let endpoint = process.env.S3_ENDPOINT;
  if (!endpoint) {
    const stateDir = await mkdtemp(join(tmpdir(), "artifact-kit-examples-s3-"));
    const env = { ...process.env, MOTO_STATE_DIR: stateDir };
    const start = script("s3/scripts/start-moto.sh");
    const { stdout } = await run("bash", [start], { env, timeout: 540_000 });
    stops.push(async () => {
      await run("bash", [start, "--stop"], { env });
      await rm(stateDir, { recursive: true, force: true });
    });
    endpoint = /^export S3_ENDPOINT=(.*)$/m.exec(stdout)?.[1];
    if (!endpoint) throw new Error(`start-moto.sh printed no S3_ENDPOINT:\n${stdout}`);
  }
  try {
    const response = await fetch(endpoint);
    if (response.status >= 500) throw new Error(`status ${response.status}`);
  } catch (error) {
    throw new Error(`S3_ENDPOINT=${endpoint} does not answer`, { cause: error });
  }
  return endpoint;
}
