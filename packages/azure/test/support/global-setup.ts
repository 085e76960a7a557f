import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    azureConnectionString: string;
  }
}

const script = fileURLToPath(new URL("../../scripts/start-azurite.sh", import.meta.url));

/**
 * Uses the server named by AZURE_STORAGE_CONNECTION_STRING, or starts Azurite with
 * scripts/start-azurite.sh and stops it afterwards. No server is a failed run, never a skipped
 * one: every test here talks to it.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const given = process.env.AZURE_STORAGE_CONNECTION_STRING;
  if (given) {
    await expectAnswer(given);
    project.provide("azureConnectionString", given);
    return async () => {};
  }
  const stateDir = await mkdtemp(join(tmpdir(), "artifact-kit-azure-"));
  const env = { ...process.env, AZURITE_STATE_DIR: stateDir };
  const { stdout } = await promisify(execFile)("bash", [script], { env, timeout: 540_000 });
  const state = Object.fromEntries(
    [...stdout.matchAll(/^export (\w+)='?(.*?)'?$/gm)].map(([, key, value]) => [key, value]),
  );
  const connectionString = state.AZURE_STORAGE_CONNECTION_STRING;
  const pid = Number(state.AZURITE_PID);
  if (!connectionString || !Number.isInteger(pid)) {
    throw new Error(`start-azurite.sh printed no connection string:\n${stdout}`);
  }
  project.provide("azureConnectionString", connectionString);
  return async () => {
    process.kill(pid);
    await rm(stateDir, { recursive: true, force: true });
  };
}

/** Any answer from the blob endpoint the connection string names (unsigned: refused, but answered). */
async function expectAnswer(connectionString: string): Promise<void> {
  const endpoint = /BlobEndpoint=([^;]+)/.exec(connectionString)?.[1];
  try {
    if (!endpoint) throw new Error("it names no BlobEndpoint");
    const response = await fetch(`${endpoint}?comp=list`);
    if (response.status < 500) return;
    throw new Error(`status ${response.status}`);
  } catch (error) {
    throw new Error(`AZURE_STORAGE_CONNECTION_STRING's blob endpoint does not answer`, {
      cause: error,
    });
  }
}
