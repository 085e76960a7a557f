// One OS process of the cross-process races:
// `node put-worker.js <opener module> <endpoint> <bucket> <name> <count>` opens a service with
// the opener module's `openRaceService(endpoint, bucket)` and puts <count> artifacts to one
// name concurrently (every other one a streamed upload), reporting each outcome as it
// settles, one JSON line apiece: {"version":N} for an acknowledged put,
// {"code":"...","message":"..."} for a refused one.
import { pathToFileURL } from "node:url";
import type { ArtifactService, ArtifactTransfer } from "@artifact-kit/core";

/** What an adapter's opener module exports for the race workers. */
export interface RaceOpener {
  /**
   * A service on `bucket` whose contention wait is ten minutes (the adapter's default is
   * 60 s), so that a loaded machine's slowness cannot pass for a refusal.
   */
  openRaceService(endpoint: string, bucket: string): ArtifactService & ArtifactTransfer;
}

const [opener, endpoint, bucket, name, count] = process.argv.slice(2);
if (!opener || !endpoint || !bucket || !name || !count) throw new Error("usage: see the header");
const { openRaceService } = (await import(pathToFileURL(opener).href)) as RaceOpener;
const service = openRaceService(endpoint, bucket);
const scope = { kind: "app", app: "race" } as const;
// The longest deadline a caller may give: how long a put keeps trying under contention is then
// the request's to decide, so whether every put succeeds never depends on the machine's speed.
const options = { timeoutMs: 300_000 };
const data = (i: number) => new TextEncoder().encode(`${process.pid}:${i}`);
async function streamed(i: number) {
  const upload = await service.openUpload(scope, name as string, options);
  await upload.write(data(i));
  return upload.finish();
}
const report = (outcome: object) => process.stdout.write(`${JSON.stringify(outcome)}\n`);
await Promise.all(
  Array.from({ length: Number(count) }, (_, i) =>
    (i % 2 ? streamed(i) : service.put(scope, name, data(i), options)).then(
      (meta) => report({ version: meta.version }),
      (error: unknown) =>
        report({
          code: (error as { code?: unknown } | null)?.code ?? "not-an-artifact-error",
          message: String(error),
        }),
    ),
  ),
);
