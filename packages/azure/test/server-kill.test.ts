import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { ArtifactError } from "@artifact-kit/core";
import { BlobServiceClient, StorageRetryPolicyType } from "@azure/storage-blob";
import { afterAll, beforeAll, expect, test } from "vitest";
import { AzureArtifactService } from "../src/index.js";

// Azurite of the test's own (scripts/start-azurite.sh in a state folder of its own) SIGKILLed with
// an upload between parts, a download between reads and more calls in flight: each fails with
// `unavailable`, and nothing ends the process. Azurite runs in memory here, so what was
// acknowledged cannot be read after a restart here: the TCP-level trials of
// connection-faults.test.ts check that (a server gone and back) on the shared server.
const run = promisify(execFile);
const script = fileURLToPath(new URL("../scripts/start-azurite.sh", import.meta.url));
const MiB = 1024 * 1024;
const scope = { kind: "app", app: "server-kill" } as const;
const data = (size: number, seed: number) => new Uint8Array(size).map((_, i) => (i + seed) % 251);
const outcomeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => "acknowledged",
    (error: unknown) =>
      error instanceof ArtifactError ? error.code : `not an ArtifactError: ${error}`,
  );

let stateDir: string;
let endpoint: string;
let pid: number;
beforeAll(async () => {
  stateDir = await mkdtemp(join(tmpdir(), "ak-own-azurite-"));
  const { stdout } = await run("bash", [script], {
    env: { ...process.env, AZURITE_STATE_DIR: stateDir },
    timeout: 540_000,
  });
  endpoint = /^export AZURE_STORAGE_CONNECTION_STRING='?([^'\n]*)'?$/m.exec(stdout)?.[1] ?? "";
  pid = Number(/^export AZURITE_PID='?(\d+)'?$/m.exec(stdout)?.[1]);
  if (!endpoint || !pid)
    throw new Error(`start-azurite.sh printed no connection string or AZURITE_PID:\n${stdout}`);
}, 600_000);
afterAll(async () => {
  await run("bash", [script, "--stop"], {
    env: { ...process.env, AZURITE_STATE_DIR: stateDir },
  }).catch(() => undefined);
  await rm(stateDir, { recursive: true, force: true });
});

test("Azurite SIGKILLed mid-upload, mid-download and under calls: unavailable, and the process lives on", async () => {
  const failures: string[] = [];
  const record = (error: unknown) => failures.push(String(error));
  process.on("uncaughtException", record);
  process.on("unhandledRejection", record);
  try {
    const container = BlobServiceClient.fromConnectionString(endpoint, {
      retryOptions: {
        retryPolicyType: StorageRetryPolicyType.EXPONENTIAL,
        maxTries: 3,
        retryDelayInMs: 50,
        maxRetryDelayInMs: 200,
      },
    }).getContainerClient(`ak-kill-${process.pid}`);
    await container.create();
    const service = new AzureArtifactService({ container, blockBytes: 1 * MiB });
    await service.put(scope, "kept", data(1_000, 1));
    await service.put(scope, "big", data(12 * MiB, 2));
    const upload = await service.openUpload(scope, "upload");
    await upload.write(data(6 * MiB, 3));
    const download = await service.openDownload(scope, "big");
    expect((await download.read())?.byteLength).toBeGreaterThan(0);

    process.kill(pid, "SIGKILL");
    // Gone once its port refuses: the next calls meet a dead server.
    const outcomes = await Promise.all([
      outcomeOf(
        (async () => {
          await upload.write(data(6 * MiB, 4));
          return upload.finish();
        })(),
      ),
      outcomeOf(
        (async () => {
          while ((await download.read()) !== undefined);
        })(),
      ),
      outcomeOf(service.put(scope, "kept", data(10, 5))),
      outcomeOf(service.get(scope, "kept")),
      outcomeOf(service.delete(scope, "kept", "latest")),
      outcomeOf(service.listNames(scope)),
    ]);
    expect(outcomes).toEqual(Array(6).fill("unavailable"));
    await download.cancel();
    await service.close();
    expect(failures).toEqual([]);
  } finally {
    process.off("uncaughtException", record);
    process.off("unhandledRejection", record);
  }
});
