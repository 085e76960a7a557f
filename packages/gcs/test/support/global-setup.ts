import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    gcsEndpoint: string;
  }
}

const script = fileURLToPath(new URL("../../scripts/start-emulator.sh", import.meta.url));

/**
 * Uses the emulator named by STORAGE_EMULATOR_HOST, or starts one of its own with
 * scripts/start-emulator.sh and stops it afterwards. No emulator is a failed run, never a
 * skipped one: every test of this package talks to it.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const given = process.env.STORAGE_EMULATOR_HOST?.replace(/\/storage\/v1\/?$/, "");
  // The client would take the variable as its whole base URL; tests pass apiEndpoint instead.
  delete process.env.STORAGE_EMULATOR_HOST;
  if (given) {
    await expectAnswer(given);
    project.provide("gcsEndpoint", given);
    return async () => {};
  }
  const stateDir = await mkdtemp(join(tmpdir(), "artifact-kit-gcs-"));
  const env = { ...process.env, FAKE_GCS_STATE_DIR: stateDir };
  const { stdout } = await promisify(execFile)("bash", [script], { env, timeout: 540_000 });
  const state = Object.fromEntries(
    [...stdout.matchAll(/^export (\w+)=(.*)$/gm)].map(([, key, value]) => [key, value]),
  );
  const endpoint = state.STORAGE_EMULATOR_HOST;
  const pid = Number(state.FAKE_GCS_PID);
  if (!endpoint || !Number.isInteger(pid)) {
    throw new Error(`start-emulator.sh printed no endpoint:\n${stdout}`);
  }
  project.provide("gcsEndpoint", endpoint);
  return async () => {
    process.kill(pid);
    await rm(stateDir, { recursive: true, force: true });
  };
}

async function expectAnswer(endpoint: string): Promise<void> {
  try {
    const response = await fetch(`${endpoint}/storage/v1/b?project=artifact-kit`);
    if (response.ok) return;
    throw new Error(`status ${response.status}`);
  } catch (error) {
    throw new Error(`STORAGE_EMULATOR_HOST=${endpoint} does not answer`, { cause: error });
  }
}
