import { describeArtifactService } from "@artifact-kit/core/conformance";
import { fsSubjects } from "@artifact-kit/fs/testing";
import { gcsSubjects } from "@artifact-kit/gcs/testing";
import { memorySubjects } from "@artifact-kit/memory/testing";
import { memoryShards, ShardedArtifactService } from "@artifact-kit/sharded";
import type { Bucket } from "@google-cloud/storage";
import { beforeAll } from "vitest";
import { faultyMemorySubject } from "../mutants/faults.js";
import { MATRIX_RUNS } from "./adapters.js";
import { azureMatrixContainer, azureMatrixSubjects } from "./azure.js";
import { matrixBucket, storageClient } from "./durable.js";
import { azureFaultOptions, gcsFaultOptions, s3FaultOptions } from "./faulty.js";
import { postgresFaultOptions } from "./faulty-postgres.js";
import { postgresMatrixSubjects } from "./postgres.js";
import { s3MatrixBucket, s3MatrixSubjects } from "./s3.js";

// Every adapter in the workspace, through the same kit, with the subjects each adapter
// package exports from its ./testing subpath. Durable adapters add reopen and corrupt.

// `MATRIX_PASS=node-compat` (.ci/run's passes on further Node versions) leaves out the scale
// laws: over emulators they are most of the matrix's time, they exercise the adapters'
// protocols rather than the runtime, and the Node 20 pass and each package's kit ran them.
const pass = process.env.MATRIX_PASS === "node-compat" ? { omit: ["scale: "] } : {};
describeArtifactService("memory", { ...pass, ...memorySubjects(), numRuns: MATRIX_RUNS.memory });

// The router over memory: shared (the worker's quotas are global, so the small ones apply)
// and exact scope (quotas per shard; see packages/sharded/test for its bounded subject).
describeArtifactService("sharded (shared, memory)", {
  ...pass,
  ...memorySubjects(
    (options) => new ShardedArtifactService(memoryShards(options), { strategy: "shared" }),
  ),
  numRuns: 50,
});
describeArtifactService("sharded (exact_scope, memory)", {
  ...pass,
  create: async () => ({ service: new ShardedArtifactService(memoryShards()) }),
  numRuns: 50,
});

// Durable adapters. Their own packages run the kit at full strength; here they run beside
// the others on every Node the matrix covers.
describeArtifactService("fs", { ...pass, ...fsSubjects(), numRuns: MATRIX_RUNS.fs });

// The scale laws put 1,100+ names and versions: through an emulator that takes minutes, not
// the default two, on a loaded machine.
const REMOTE_TIMEOUT_MS = 600_000;

let openBucket: () => Bucket;
beforeAll(async () => {
  openBucket = await matrixBucket();
});
describeArtifactService(`gcs on fake-gcs-server (${storageClient})`, {
  ...pass,
  ...gcsSubjects(() => openBucket()),
  numRuns: 20,
  testTimeoutMs: REMOTE_TIMEOUT_MS,
});
describeArtifactService("postgres", {
  ...pass,
  ...postgresMatrixSubjects(),
  numRuns: MATRIX_RUNS.postgres,
  testTimeoutMs: REMOTE_TIMEOUT_MS,
});

let s3Bucket: string;
beforeAll(async () => {
  s3Bucket = await s3MatrixBucket();
});
describeArtifactService("s3 on moto", {
  ...pass,
  ...s3MatrixSubjects(() => s3Bucket),
  numRuns: 10,
  testTimeoutMs: REMOTE_TIMEOUT_MS,
});

let azureContainer: string;
beforeAll(async () => {
  azureContainer = await azureMatrixContainer();
});
describeArtifactService("azure on Azurite", {
  ...azureMatrixSubjects(() => azureContainer),
  numRuns: 10,
  testTimeoutMs: REMOTE_TIMEOUT_MS,
});

// The fault laws, on subjects whose backend requests go through a fault injector: the HTTP
// fault proxy for gcs, s3 and azure and the TCP one for postgres (each prints how many faults a
// request took), an in-process one for memory. Only those laws run here; the describes above run the rest.
// A fixed seed, so that the number of faults is the same in every run (over 200 for each
// network adapter); seed 6 found the gcs delete that kept deleting after it had failed.
const FAULT_SEED = 6;
describeArtifactService("memory behind an in-process fault injector", {
  ...pass,
  create: faultyMemorySubject(),
  numRuns: MATRIX_RUNS.memory,
  only: "faults: ",
});
describeArtifactService("s3 on moto, through a fault proxy", {
  ...s3FaultOptions(),
  numRuns: MATRIX_RUNS.faults,
  seed: FAULT_SEED,
  only: "faults: ",
  testTimeoutMs: 600_000,
});
describeArtifactService("postgres, through a TCP fault proxy", {
  ...postgresFaultOptions(),
  numRuns: MATRIX_RUNS.faults,
  seed: FAULT_SEED,
  only: "faults: ",
  testTimeoutMs: 600_000,
});
describeArtifactService("gcs on fake-gcs-server, through a fault proxy", {
  ...gcsFaultOptions(),
  numRuns: MATRIX_RUNS.faults,
  seed: FAULT_SEED,
  only: "faults: ",
  testTimeoutMs: 600_000,
});
describeArtifactService("azure on Azurite, through a fault proxy", {
  ...azureFaultOptions(),
  numRuns: MATRIX_RUNS.faults,
  seed: FAULT_SEED,
  only: "faults: ",
  testTimeoutMs: 600_000,
});
