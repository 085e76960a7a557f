// Issue 30: contention on one name. `--writers` service instances (16), each with a client of
// its own, as many hosts would be, put `--puts` artifacts (50) one after another to the same
// (scope, name), all writers at once. Reports refusals (target 0: a put under contention
// waits with jittered backoff while its deadline allows, never fails for it) and the put
// latency's percentiles, on moto and on fake-gcs-server.
// Run: node bench/dist/contention.js [--s3 <endpoint>] [--gcs <endpoint>] [--writers 16]
//        [--puts 50] [--rounds 1]
import { parseArgs } from "node:util";
import { type ArtifactService, isArtifactError, type Scope } from "@artifact-kit/core";
import { GcsArtifactService } from "@artifact-kit/gcs";
import { S3ArtifactService } from "@artifact-kit/s3";
import { Storage } from "@google-cloud/storage";
import { positiveInteger } from "./args.js";
import { emptyBucket as emptyGcsBucket, refuseEmulatorHostVariable } from "./gcs/bucket.js";
import { benchClient, emptyBucket as emptyS3Bucket } from "./s3/client.js";

const scope: Scope = { kind: "app", app: "contention-bench" };
const NAME = "shared";

interface RoundResult {
  readonly puts: number;
  readonly refusals: Readonly<Record<string, number>>;
  /** Put latencies in milliseconds, sorted. */
  readonly latencies: readonly number[];
  readonly wallMs: number;
}

/** Every writer puts `puts` artifacts in turn; all writers run at once. */
async function round(writers: ArtifactService[], puts: number): Promise<RoundResult> {
  const refusals: Record<string, number> = {};
  const latencies: number[] = [];
  const versions = new Set<number>();
  const started = performance.now();
  await Promise.all(
    writers.map(async (writer, w) => {
      for (let i = 0; i < puts; i++) {
        const begun = performance.now();
        try {
          const meta = await writer.put(scope, NAME, new TextEncoder().encode(`${w}:${i}`));
          latencies.push(performance.now() - begun);
          versions.add(meta.version);
        } catch (error) {
          const code = isArtifactError(error) ? error.code : "not an ArtifactError";
          refusals[code] = (refusals[code] ?? 0) + 1;
        }
      }
    }),
  );
  const wallMs = performance.now() - started;
  if (versions.size !== latencies.length) {
    throw new Error(`${latencies.length} acknowledged puts share ${versions.size} versions`);
  }
  return {
    puts: writers.length * puts,
    refusals,
    latencies: latencies.sort((a, b) => a - b),
    wallMs,
  };
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

function report(backend: string, writers: number, result: RoundResult): void {
  const refused = Object.values(result.refusals).reduce((sum, n) => sum + n, 0);
  const ms = (p: number) => `${percentile(result.latencies, p).toFixed(0)} ms`;
  console.log(
    `| ${backend} | ${writers} x ${result.puts / writers} | ${refused}` +
      `${refused ? ` (${JSON.stringify(result.refusals)})` : ""} | ${ms(50)} | ${ms(99)} | ` +
      `${ms(100)} | ${(result.wallMs / 1000).toFixed(1)} s | ${refused === 0 ? "pass" : "**MISS**"} |`,
  );
}

async function s3Writers(endpoint: string, count: number): Promise<S3ArtifactService[]> {
  const bucket = `ak-bench-contention-${Date.now()}`;
  await emptyS3Bucket(benchClient(endpoint), bucket);
  return Array.from(
    { length: count },
    () => new S3ArtifactService({ client: benchClient(endpoint), bucket }),
  );
}

async function gcsWriters(endpoint: string, count: number): Promise<GcsArtifactService[]> {
  const bucketName = `ak-bench-contention-${Date.now()}`;
  const storage = () => new Storage({ apiEndpoint: endpoint, projectId: "artifact-kit-bench" });
  await emptyGcsBucket(storage().bucket(bucketName));
  return Array.from(
    { length: count },
    () => new GcsArtifactService({ bucket: storage().bucket(bucketName) }),
  );
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      s3: { type: "string" },
      gcs: { type: "string" },
      writers: { type: "string", default: "16" },
      puts: { type: "string", default: "50" },
      rounds: { type: "string", default: "1" },
    },
  });
  const writers = positiveInteger(values.writers, "--writers");
  const puts = positiveInteger(values.puts, "--puts");
  const rounds = positiveInteger(values.rounds, "--rounds");
  if (!values.s3 && !values.gcs) throw new Error("give --s3 <endpoint>, --gcs <endpoint> or both");
  console.log(
    "| backend | writers x puts | refusals | p50 | p99 | max | wall | target 0 refusals |",
  );
  console.log("| --- | --- | --- | --- | --- | --- | --- | --- |");
  for (let r = 0; r < rounds; r++) {
    if (values.s3) {
      const services = await s3Writers(values.s3, writers);
      report("s3 (moto)", writers, await round(services, puts));
      await Promise.all(services.map((service) => service.close()));
    }
    if (values.gcs) {
      refuseEmulatorHostVariable();
      const services = await gcsWriters(values.gcs, writers);
      report("gcs (fake-gcs-server)", writers, await round(services, puts));
      await Promise.all(services.map((service) => service.close()));
    }
  }
}

await main();
