import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import {
  ArtifactError,
  type ArtifactService,
  type ArtifactTransfer,
  type Scope,
} from "@artifact-kit/core";
import { afterAll, beforeAll, expect, test } from "vitest";

// The emulator of the test's own (its start script, in a state folder of its own) SIGKILLed
// with an upload between parts, a download between reads and more calls in flight: each fails
// with `unavailable`, and nothing ends the process. The emulators keep their objects in
// memory, so what was acknowledged cannot be read after a restart here: the TCP-level trials
// (connection-faults.ts) check that, with a server gone and back, on the shared server.

/** What the server-kill trial needs of an object-store adapter and its emulator. */
export interface ServerKillBackend {
  /** The emulator, as test names call it ("moto"). */
  readonly server: string;
  /** Its start script (`--stop` stops it), printing `export` lines. */
  readonly script: string;
  /** The variable that gives the script a state folder of its own. */
  readonly stateDirVar: string;
  /** The printed variables: the one the service is opened with, and the server's process id. */
  readonly endpointVar: string;
  readonly pidVar: string;
  /** A service on a fresh bucket of the server at `endpoint`, with parts of at most 6 MiB. */
  open(endpoint: string): Promise<ArtifactService & ArtifactTransfer>;
}

const run = promisify(execFile);
const MiB = 1024 * 1024;
const scope: Scope = { kind: "app", app: "server-kill" };
const data = (size: number, seed: number) => new Uint8Array(size).map((_, i) => (i + seed) % 251);
/** "acknowledged", or the code of the ArtifactError it failed with; anything else is named. */
const outcomeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => "acknowledged",
    (error: unknown) =>
      error instanceof ArtifactError ? error.code : `not an ArtifactError: ${String(error)}`,
  );

export function describeServerKill(backend: ServerKillBackend): void {
  let stateDir: string;
  let endpoint: string;
  let pid: number;
  const env = () => ({ ...process.env, [backend.stateDirVar]: stateDir });
  const printed = (stdout: string, name: string) =>
    new RegExp(`^export ${name}='?([^'\\n]*)'?$`, "m").exec(stdout)?.[1] ?? "";

  beforeAll(async () => {
    stateDir = await mkdtemp(join(tmpdir(), `ak-own-${backend.server.toLowerCase()}-`));
    // A first use installs the emulator: minutes on a loaded machine.
    const { stdout } = await run("bash", [backend.script], { env: env(), timeout: 540_000 });
    endpoint = printed(stdout, backend.endpointVar);
    pid = Number(printed(stdout, backend.pidVar));
    if (!endpoint || !pid) {
      throw new Error(
        `${backend.script} printed no ${backend.endpointVar} or ${backend.pidVar}:\n${stdout}`,
      );
    }
  }, 600_000);
  afterAll(async () => {
    await run("bash", [backend.script, "--stop"], { env: env() }).catch(() => undefined);
    await rm(stateDir, { recursive: true, force: true });
  });

  test(`${backend.server} SIGKILLed mid-upload, mid-download and under calls: unavailable, and the process lives on`, async () => {
    const failures: string[] = [];
    const record = (error: unknown) => failures.push(String(error));
    process.on("uncaughtException", record);
    process.on("unhandledRejection", record);
    try {
      const service = await backend.open(endpoint);
      await service.put(scope, "kept", data(1_000, 1));
      await service.put(scope, "big", data(12 * MiB, 2));
      const upload = await service.openUpload(scope, "upload");
      await upload.write(data(6 * MiB, 3));
      const download = await service.openDownload(scope, "big");
      expect((await download.read())?.byteLength).toBeGreaterThan(0);

      process.kill(pid, "SIGKILL");
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
}
