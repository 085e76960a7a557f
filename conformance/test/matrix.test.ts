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

// How hard each adapter is run here: every adapter runs the whole kit at full strength once
// in `npm test`. The fault subjects do it here, at the matrix's settings. Every adapter does
// it in its own package's kit, at these settings or stronger (memory and the router over
// memory at the same settings, fs, gcs, postgres, s3 and azure at these or stronger:
// `packages/*/test/conformance.test.ts`), so the default pass leaves them out (see
// describePackageAdapters); the Node 22/24/26 passes run them here, which proves this
// matrix's wiring of them. `MATRIX_PASS=full` runs them at full strength here too.
//
// `MATRIX_PASS=node-compat` (.ci/run's passes on Node 22, 24 and 26) proves the runtime, not
// the protocols (Node 20 proved those): every adapter runs lightly the laws whose outcome
// rests on what the runtime does (files, sockets, streams, timers, hashing, processes
// racing and faults), and leaves out the families that check core's
// argument validation, the listings' order and bounds and the protocols' handling of repeated
// faults, which run the same code on any Node (NODE_COMPAT_OMITS), and the laws that walk the
// protocols' and adapters' own code at length (random model sequences, two handles, aliasing,
// durability across reopens, idempotency, linearizability). Three runs
// of each property: a runtime that breaks an adapter breaks it on first contact, not in a
// rare interleaving (issue 32: each pass was 230 s of the tail's longest path).
const LIGHT_RUNS = 3;
const NODE_COMPAT_OMITS = [
  "scale: ",
  "validation: ",
  "values: ",
  "scopes: ",
  "scope listing: ",
  "bounds: ",
  "cursors: ",
  "laws: ",
  "prefix: ",
  "maintenance: ",
  "handles: ",
  "model: ",
  "aliasing: ",
  // The protocols' own walks of many requests each: reopen with every high-water, keys under
  // concurrent puts, linearizable histories. On a loaded CI machine they were half of each
  // pass (265 of 543 s); what they rest on from the runtime (hashing, streams, sockets, timers,
  // files, processes) the state, transfer, fault, deadline, corruption and race laws reach too.
  "durability: ",
  "idempotency: ",
  "linearizability: ",
  // Protocol walks of a few hundred requests each through the fault proxies (a minute on s3
  // and azure): what a repeated fault leaves behind is the protocol's doing, not the runtime's.
  "repeated faults: ",
];
const matrixPass = process.env.MATRIX_PASS ?? "default";
if (!["default", "full", "node-compat"].includes(matrixPass)) {
  throw new Error(`MATRIX_PASS is full, node-compat or unset, not ${matrixPass}`);
}
function strength(numRuns: number) {
  if (matrixPass !== "node-compat") return { numRuns };
  return { omit: NODE_COMPAT_OMITS, numRuns: Math.min(numRuns, LIGHT_RUNS) };
}

// Every adapter's own package runs the kit at full strength on Node 20 in `npm test`, with
// the subjects it exports, and the Node 22/24/26 passes run them here, with the matrix's
// wiring. A pass of them here on Node 20 as well proved nothing new: for the durable adapters
// it was about half this file's time through the emulators, and memory and the router over
// memory ran the very same describes as their packages do (issue 32). `MATRIX_PASS=full` runs them.
if (matrixPass !== "default") describePackageAdapters();

function describePackageAdapters() {
  describeArtifactService("memory", { ...memorySubjects(), ...strength(MATRIX_RUNS.memory) });

  // The router over memory: shared (the worker's quotas are global, so the small ones apply)
  // and exact scope (quotas per shard; see packages/sharded/test for its bounded subject).
  describeArtifactService("sharded (shared, memory)", {
    ...memorySubjects(
      (options) => new ShardedArtifactService(memoryShards(options), { strategy: "shared" }),
    ),
    ...strength(50),
  });
  describeArtifactService("sharded (exact_scope, memory)", {
    create: async () => ({ service: new ShardedArtifactService(memoryShards()) }),
    ...strength(50),
  });

  describeArtifactService("fs", { ...fsSubjects(), ...strength(MATRIX_RUNS.fs) });

  // Through an emulator on a loaded machine a law can take minutes, not the default two.
  const REMOTE_TIMEOUT_MS = 600_000;

  let openBucket: () => Bucket;
  beforeAll(async () => {
    openBucket = await matrixBucket();
  });
  describeArtifactService(`gcs on fake-gcs-server (${storageClient})`, {
    ...gcsSubjects(() => openBucket()),
    ...strength(20),
    testTimeoutMs: REMOTE_TIMEOUT_MS,
  });
  describeArtifactService("postgres", {
    ...postgresMatrixSubjects(),
    ...strength(MATRIX_RUNS.postgres),
    testTimeoutMs: REMOTE_TIMEOUT_MS,
  });

  let s3Bucket: string;
  beforeAll(async () => {
    s3Bucket = await s3MatrixBucket();
  });
  describeArtifactService("s3 on moto", {
    ...s3MatrixSubjects(() => s3Bucket),
    ...strength(10),
    testTimeoutMs: REMOTE_TIMEOUT_MS,
  });

  let azureContainer: string;
  beforeAll(async () => {
    azureContainer = await azureMatrixContainer();
  });
  describeArtifactService("azure on Azurite", {
    ...azureMatrixSubjects(() => azureContainer),
    ...strength(10),
    testTimeoutMs: REMOTE_TIMEOUT_MS,
  });
}

// The fault laws, on subjects whose backend requests go through a fault injector: the HTTP
// fault proxy for gcs, s3 and azure and the TCP one for postgres (each prints how many faults a
// request took), an in-process one for memory. Only those laws run here; the describes above run the rest.
// A fixed seed, so that the number of faults is the same in every run (over 200 for each
// network adapter); seed 6 found the gcs delete that kept deleting after it had failed.
const FAULT_SEED = 6;
describeArtifactService("memory behind an in-process fault injector", {
  create: faultyMemorySubject(),
  ...strength(MATRIX_RUNS.memory),
  only: "faults: ",
});
describeArtifactService("s3 on moto, through a fault proxy", {
  ...s3FaultOptions(),
  ...strength(MATRIX_RUNS.faults),
  seed: FAULT_SEED,
  only: "faults: ",
  testTimeoutMs: 600_000,
});
describeArtifactService("postgres, through a TCP fault proxy", {
  ...postgresFaultOptions(),
  ...strength(MATRIX_RUNS.faults),
  seed: FAULT_SEED,
  only: "faults: ",
  testTimeoutMs: 600_000,
});
describeArtifactService("gcs on fake-gcs-server, through a fault proxy", {
  ...gcsFaultOptions(),
  ...strength(MATRIX_RUNS.faults),
  seed: FAULT_SEED,
  only: "faults: ",
  testTimeoutMs: 600_000,
});
describeArtifactService("azure on Azurite, through a fault proxy", {
  ...azureFaultOptions(),
  ...strength(MATRIX_RUNS.faults),
  seed: FAULT_SEED,
  only: "faults: ",
  testTimeoutMs: 600_000,
});
