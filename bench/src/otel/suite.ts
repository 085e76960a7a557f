import type { ArtifactService } from "@artifact-kit/core";
import { FsArtifactService } from "@artifact-kit/fs";
import { MemoryArtifactService } from "@artifact-kit/memory";
import { withTelemetry } from "@artifact-kit/otel";
import { BENCH_SCOPE } from "../kit-store.js";
import type { Workload } from "../measure.js";
import { ScratchSpace } from "../scratch.js";
import { compare, type Row, type Suite, type Target } from "../suite.js";
import { KiB, payload } from "../workloads.js";
import { realSdk } from "./sdk.js";

type Open = () => Promise<ArtifactService>;

/** Puts of one name per store before it is reset, within both adapters' per-name ceilings. */
const MAX_VERSIONS = 2_000;
const FILLER = payload(64);

/**
 * Put `bytes` as a new version of one name, into a store already holding `storeNames` other
 * names; the store is rebuilt (untimed) when MAX_VERSIONS is reached.
 */
function putIntoStore(open: Open, bytes: Uint8Array, storeNames: number): Workload {
  let service: ArtifactService | undefined;
  let versions = 0;
  const rebuild = async () => {
    await service?.close();
    const fresh = await open();
    for (let i = 0; i < storeNames; i += 16) {
      const batch = Array.from({ length: Math.min(16, storeNames - i) }, (_, j) =>
        fresh.put(BENCH_SCOPE, `existing/${i + j}`, FILLER),
      );
      await Promise.all(batch);
    }
    service = fresh;
    versions = 0;
  };
  return {
    prepare: rebuild,
    run: async () => {
      versions += 1;
      return (service as ArtifactService).put(BENCH_SCOPE, "report.bin", bytes);
    },
    afterSample: async () => {
      if (versions >= MAX_VERSIONS) await rebuild();
    },
    finish: async () => {
      await service?.close();
      service = undefined;
    },
  };
}

/** Issue 22: the cost of withTelemetry over the same adapter, with the real SDK exporting nowhere. */
export function otelSuite(): Suite {
  const sdk = realSdk();
  const scratch = new ScratchSpace();
  const traced =
    (open: Open): Open =>
    async () =>
      withTelemetry(await open(), sdk.providers);
  const memory: Open = async () => new MemoryArtifactService();
  const fsIn =
    (owner: string): Open =>
    () =>
      FsArtifactService.open({ root: scratch.fresh(owner) });

  const row = (
    label: string,
    plain: Open,
    wrapped: Open,
    bytes: Uint8Array,
    storeNames: number,
    batch: number,
    bound: number,
  ): Row => ({
    label: `${label}, store of ${storeNames.toLocaleString("en-US")} names`,
    batch,
    workloads: {
      plain: putIntoStore(plain, bytes, storeNames),
      traced: putIntoStore(wrapped, bytes, storeNames),
    },
    target: { comparison: "overhead", bound, holds: "atMost" } satisfies Target,
  });
  const memoryRow = (storeNames: number) =>
    row("memory put 1 KiB", memory, traced(memory), payload(KiB), storeNames, 64, 1.1);
  const fsRow = (storeNames: number) =>
    row(
      "fs put 4 KiB",
      fsIn(`plain-${storeNames}`),
      traced(fsIn(`traced-${storeNames}`)),
      payload(4 * KiB),
      storeNames,
      1,
      1.03,
    );

  return {
    title: "otel",
    // An fsync'd put varies by tens of ms on a shared disk: enough samples for a stable mean.
    minSamples: 30,
    columns: [
      { id: "plain", label: "adapter" },
      { id: "traced", label: "withTelemetry(adapter), real SDK" },
    ],
    comparisons: [compare("overhead", "traced/plain time", "traced", "plain", "time")],
    rows: [
      memoryRow(0),
      memoryRow(10_000),
      // No target: how the wrapper's fixed cost per call shrinks against a costlier put.
      {
        label: "memory put 64 KiB, store of 0 names",
        batch: 4,
        workloads: {
          plain: putIntoStore(memory, payload(64 * KiB), 0),
          traced: putIntoStore(traced(memory), payload(64 * KiB), 0),
        },
      },
      fsRow(0),
      fsRow(200),
    ],
    close: async () => {
      await sdk.shutdown();
      scratch.close();
    },
  };
}
