import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    s3Endpoint: string;
  }
}

const script = fileURLToPath(new URL("../../scripts/start-moto.sh", import.meta.url));

/**
 * Uses the server named by S3_ENDPOINT, or starts moto with scripts/start-moto.sh and stops
 * it afterwards. No server is a failed run, never a skipped one: every test here talks to it.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const given = process.env.S3_ENDPOINT;
  if (given) {
    await expectAnswer(given);
    project.provide("s3Endpoint", given);
    return async () => {};
  }
  const stateDir = await mkdtemp(join(tmpdir(), "artifact-kit-s3-"));
  const env = { ...process.env, MOTO_STATE_DIR: stateDir };
  const { stdout } = await promisify(execFile)("bash", [script], { env, timeout: 540_000 });
  const state = Object.fromEntries(
    [...stdout.matchAll(/^export (\w+)=(.*)$/gm)].map(([, key, value]) => [key, value]),
  );
  const endpoint = state.S3_ENDPOINT;
  const pid = Number(state.MOTO_PID);
  if (!endpoint || !Number.isInteger(pid)) {
    throw new Error(`start-moto.sh printed no endpoint:\n${stdout}`);
  }
  project.provide("s3Endpoint", endpoint);
  return async () => {
    process.kill(pid);
    await rm(stateDir, { recursive: true, force: true });
  };
}

async function expectAnswer(endpoint: string): Promise<void> {
  try {
    const response = await fetch(endpoint);
    if (response.status < 500) return;
    throw new Error(`status ${response.status}`);
  } catch (error) {
    throw new Error(`S3_ENDPOINT=${endpoint} does not answer`, { cause: error });
  }
}
