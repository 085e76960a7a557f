import { parseArgs } from "node:util";
import { positiveInteger } from "./args.js";
import { azureSuite } from "./azure/suite.js";
import { effectsSuite } from "./effects/suite.js";
import { fsScopesSuite, fsSuite } from "./fs/suite.js";
import { gcsSuite } from "./gcs/suite.js";
import { describeMachine, loadAverage } from "./machine.js";
import { memorySuite } from "./memory/suite.js";
import type { ObjectStoreOptions } from "./object-store/suite.js";
import { otelSuite } from "./otel/suite.js";
import { postgresSuite } from "./postgres/suite.js";
import { runStoreSuite } from "./run-store.bench.js";
import { type RunOptions, roundsOf, runSuite } from "./run-suite.js";
import { s3Suite } from "./s3/suite.js";
import { gcsScaleSuite } from "./scale/gcs.js";
import { memoryScaleSuite } from "./scale/memory.js";
import { s3ScaleSuite } from "./scale/s3.js";
import { shardedSuite } from "./sharded/suite.js";
import type { Suite } from "./suite.js";

interface SuiteContext {
  /** fake-gcs-server's endpoint, from --gcs; the gcs suite is skipped without it. */
  readonly gcsEndpoint: string | undefined;
  /** A PostgreSQL URL, from --postgres or DATABASE_URL; the postgres suite is skipped without it. */
  readonly databaseUrl: string | undefined;
  /** An S3-compatible server's endpoint (moto), from --s3; the s3 suite is skipped without it. */
  readonly s3Endpoint: string | undefined;
  /**
   * An Azure Blob service's connection string (Azurite), from --azure or
   * AZURE_STORAGE_CONNECTION_STRING; the azure suite is skipped without it.
   */
  readonly azureConnectionString: string | undefined;
  /** The object-store suites' untimed measures, from --upload-mib. */
  readonly objectStore: ObjectStoreOptions;
}

/** Each suite, or the reason it cannot run here. */
const SUITES: Readonly<Record<string, (context: SuiteContext) => Suite | Promise<Suite> | string>> =
  {
    memory: memorySuite,
    "memory-scale": memoryScaleSuite,
    fs: fsSuite,
    "fs-scopes": fsScopesSuite,
    effects: effectsSuite,
    "run-store": runStoreSuite,
    sharded: shardedSuite,
    otel: otelSuite,
    gcs: ({ gcsEndpoint, objectStore }) =>
      gcsEndpoint === undefined
        ? "skipped (pass --gcs <emulator endpoint>)"
        : gcsSuite(gcsEndpoint, objectStore),
    "gcs-scale": ({ gcsEndpoint }) =>
      gcsEndpoint === undefined
        ? "skipped (pass --gcs <emulator endpoint>)"
        : gcsScaleSuite(gcsEndpoint),
    postgres: ({ databaseUrl }) =>
      databaseUrl === undefined
        ? "skipped (pass --postgres <url> or set DATABASE_URL)"
        : postgresSuite(databaseUrl),
    "s3-scale": ({ s3Endpoint }) =>
      s3Endpoint === undefined ? "skipped (pass --s3 <server endpoint>)" : s3ScaleSuite(s3Endpoint),
    s3: ({ s3Endpoint, objectStore }) =>
      s3Endpoint === undefined
        ? "skipped (pass --s3 <server endpoint>)"
        : s3Suite(s3Endpoint, objectStore),
    azure: ({ azureConnectionString, objectStore }) =>
      azureConnectionString === undefined
        ? "skipped (pass --azure <connection string> or set AZURE_STORAGE_CONNECTION_STRING)"
        : azureSuite(azureConnectionString, objectStore),
  };

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    "time-ms": { type: "string", default: "300" },
    "warmup-ms": { type: "string", default: "100" },
    rounds: { type: "string", default: "3" },
    gcs: { type: "string" },
    postgres: { type: "string" },
    s3: { type: "string" },
    azure: { type: "string" },
    // The streamed upload whose memory growth the object-store suites measure.
    "upload-mib": { type: "string", default: "256" },
  },
});
const names = positionals.length > 0 ? positionals : Object.keys(SUITES);
const options: RunOptions = {
  timeMs: positiveInteger(values["time-ms"], "--time-ms"),
  warmupMs: positiveInteger(values["warmup-ms"], "--warmup-ms"),
  minSamples: 5,
  rounds: positiveInteger(values.rounds, "--rounds"),
};

console.log(describeMachine());
console.log(`command: node dist/main.js ${process.argv.slice(2).join(" ")}`);
for (const name of names) {
  const suite = SUITES[name];
  if (!suite) throw new Error(`unknown suite "${name}"; known: ${Object.keys(SUITES).join(", ")}`);
  const opened = await suite({
    gcsEndpoint: values.gcs,
    databaseUrl: values.postgres ?? process.env.DATABASE_URL,
    s3Endpoint: values.s3,
    azureConnectionString: values.azure ?? process.env.AZURE_STORAGE_CONNECTION_STRING,
    objectStore: {
      uploadBytes: positiveInteger(values["upload-mib"], "--upload-mib") * 1024 * 1024,
    },
  });
  if (typeof opened === "string") {
    console.log(`\n## ${name}: ${opened}`);
    continue;
  }
  const startedAt = performance.now();
  const loadBefore = loadAverage();
  const table = await runSuite(opened, options);
  const seconds = ((performance.now() - startedAt) / 1000).toFixed(0);
  const rounds = roundsOf(opened, options);
  console.log(
    `\n## ${name} (measured in ${seconds} s; medians of ${rounds} rounds taken in turns; ` +
      `load average ${loadBefore} before, ${loadAverage()} after)\n\n${table}`,
  );
}
