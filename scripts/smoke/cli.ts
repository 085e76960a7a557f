import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import {
  type DeveloperApi,
  EXIT_CODES,
  openStore,
  parseStoreUri,
  startDeveloperApi,
} from "@artifact-kit/cli";

// The installed bin, run on this Node, against a fresh fs store; then the developer API
// from the library entry point.
const require = createRequire(import.meta.url);
const manifestPath = require.resolve("@artifact-kit/cli/package.json");
const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as {
  bin: Record<string, string>;
  version: string;
};
const GCS_INSTALL = "npm install @artifact-kit/gcs @google-cloud/storage";
const binScript = join(dirname(manifestPath), manifest.bin["artifact-kit"] ?? "");
if (!existsSync(join("node_modules", ".bin", "artifact-kit"))) throw new Error("no bin link");

const work = mkdtempSync(join(tmpdir(), "smoke-cli-"));
const run = (...args: string[]) =>
  JSON.parse(
    execFileSync(process.execPath, [binScript, ...args, "--json"], { cwd: work, encoding: "utf8" }),
  );
try {
  writeFileSync(join(work, "hello.txt"), "hello");
  const put = run("put", "hello.txt", "hello.txt", "--app", "smoke");
  run("get", "hello.txt@1", "-o", "copy.txt", "--app", "smoke");
  if (readFileSync(join(work, "copy.txt"), "utf8") !== "hello")
    throw new Error("round trip failed");
  const demo = run("demo");
  let notFound = 0;
  try {
    execFileSync(process.execPath, [binScript, "info", "nope", "--app", "smoke"], {
      cwd: work,
      stdio: "pipe",
    });
  } catch (error) {
    notFound = (error as { status: number }).status;
  }
  if (notFound !== EXIT_CODES.notFound)
    throw new Error(`info of a missing name exited ${notFound}`);

  // Installed alone, the CLI brings no GCS client, and a gs:// store says what to install.
  if (existsSync(join("node_modules", "@google-cloud", "storage"))) {
    throw new Error("installing the CLI pulled @google-cloud/storage");
  }
  const gcs = spawnSync(process.execPath, [binScript, "ls", "--store", "gs://b/p", "--app", "a"], {
    cwd: work,
    encoding: "utf8",
  });
  if (gcs.status !== EXIT_CODES.invalidArgument || !gcs.stderr.includes(GCS_INSTALL)) {
    throw new Error(`a gs:// store without its packages: exit ${gcs.status}, ${gcs.stderr}`);
  }
  const version = execFileSync(process.execPath, [binScript, "--version"], { encoding: "utf8" });
  if (version.trim() !== manifest.version) {
    throw new Error(`--version printed ${version.trim()}, the package is ${manifest.version}`);
  }

  const service = await openStore(parseStoreUri("memory:"));
  await service.put({ kind: "app", app: "smoke" }, "a.txt", new Uint8Array([1]));
  const api: DeveloperApi = await startDeveloperApi({ service, token: "smoke-token-0123456789" });
  const response = await fetch(`${api.url}/v1/apps/smoke/names`, {
    headers: { authorization: "Bearer smoke-token-0123456789" },
  });
  const names = (await response.json()) as { items: string[] };
  await api.close();
  await service.close();
  if (names.items.join() !== "a.txt") throw new Error(`the API listed ${names.items.join()}`);
  console.log(`cli: put v${put.version}, get, demo (${demo.steps.length} lines), exit codes, API`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
