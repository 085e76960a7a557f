// One OS process of the cross-process races:
// `node put-worker.mjs <connection string> <container> <name> <count>` puts <count> artifacts
// concurrently (every other one a streamed upload), and reports each outcome as it settles,
// one JSON line apiece:
// {"version":N} for an acknowledged put, {"code":"...","message":"..."} for a refused one.
import { BlobServiceClient } from "@azure/storage-blob";
import { AzureArtifactService } from "../../dist/index.js";

const [connectionString, containerName, name, count] = process.argv.slice(2);
const container =
  BlobServiceClient.fromConnectionString(connectionString).getContainerClient(containerName);
// Contention is bounded by the adapter's wait, 60 s by default: ten minutes here, so that a
// loaded machine's slowness cannot pass for a refusal (a refusal is what the races look for).
const service = new AzureArtifactService({ container, maxContentionWaitMs: 600_000 });
const scope = { kind: "app", app: "race" };
// The longest deadline a caller may give: how long a put keeps trying under contention is then
// the request's to decide, so whether every put succeeds never depends on the machine's speed.
const options = { timeoutMs: 300_000 };
const data = (i) => new TextEncoder().encode(`${process.pid}:${i}`);
async function streamed(i) {
  const upload = await service.openUpload(scope, name, options);
  await upload.write(data(i));
  return upload.finish();
}
const report = (outcome) => process.stdout.write(`${JSON.stringify(outcome)}\n`);
const puts = Array.from({ length: Number(count) }, (_, i) =>
  (i % 2 ? streamed(i) : service.put(scope, name, data(i), options)).then(
    (meta) => report({ version: meta.version }),
    (error) => report({ code: error?.code ?? "not-an-artifact-error", message: String(error) }),
  ),
);
await Promise.all(puts);
