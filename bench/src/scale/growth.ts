import type { ArtifactService } from "@artifact-kit/core";
import { BENCH_SCOPE } from "../kit-store.js";
import type { Workload } from "../measure.js";
import type { Row, Suite } from "../suite.js";

/** The operation a growth row times, on a service already filled to one store size. */
type Probe = (service: ArtifactService, round: number) => Promise<unknown>;

/** How to fill a fresh service to one store size (untimed). */
type Fill = (service: ArtifactService) => Promise<void>;

interface GrowthRow {
  readonly label: string;
  /** The same operation at the small and the large store size. */
  readonly small: Fill;
  readonly large: Fill;
  readonly probe: Probe;
  /** The probe of the small store, when it cannot be the same call (default: `probe`). */
  readonly probeSmall?: Probe;
  /** The target: large-store time at most this many times the small-store time. */
  readonly bound: number;
  readonly batch?: number;
}

/**
 * A suite that times each operation on a small store and on a large one, side by side in one
 * run, and prints the growth ratio (large time over small time) with PASS / MISS against the
 * bound: per-operation cost must not grow with the number of names or versions stored.
 */
export function growthSuite(options: {
  title: string;
  sizes: { small: string; large: string };
  open: () => Promise<ArtifactService>;
  rows: readonly GrowthRow[];
  close?: () => Promise<void>;
}): Suite {
  const opened: ArtifactService[] = [];
  const workload = (fill: Fill, probe: Probe): Workload => {
    let service: ArtifactService | undefined;
    let round = 0;
    return {
      prepare: async () => {
        if (service) return;
        service = await options.open();
        opened.push(service);
        await fill(service);
      },
      run: () => probe(service as ArtifactService, round++),
    };
  };
  const rows: Row[] = options.rows.map((row) => ({
    label: row.label,
    batch: row.batch ?? 1,
    workloads: {
      small: workload(row.small, row.probeSmall ?? row.probe),
      large: workload(row.large, row.probe),
    },
    target: { comparison: "growth", bound: row.bound, holds: "atMost" },
  }));
  return {
    title: options.title,
    // Issue 17 asks for medians of at least 5 rounds.
    minRounds: 5,
    columns: [
      { id: "small", label: options.sizes.small },
      { id: "large", label: options.sizes.large },
    ],
    comparisons: [
      {
        id: "growth",
        label: "large/small time",
        subject: "large",
        baseline: "small",
        metric: "time",
      },
    ],
    rows,
    close: async () => {
      await Promise.all(opened.map((service) => service.close()));
      await options.close?.();
    },
  };
}

/** Puts `count` names (one version each), `parallel` at a time. */
export async function fillNames(service: ArtifactService, count: number, parallel = 64) {
  const data = new Uint8Array(16);
  for (let start = 0; start < count; start += parallel) {
    const batch = Array.from({ length: Math.min(parallel, count - start) }, (_, i) =>
      service.put(BENCH_SCOPE, `seed/${String(start + i).padStart(7, "0")}`, data),
    );
    await Promise.all(batch);
  }
}

/** Puts `count` versions of one name, `parallel` at a time. */
export async function fillVersions(
  service: ArtifactService,
  name: string,
  count: number,
  parallel = 64,
) {
  const data = new Uint8Array(16);
  for (let start = 0; start < count; start += parallel) {
    const batch = Array.from({ length: Math.min(parallel, count - start) }, () =>
      service.put(BENCH_SCOPE, name, data),
    );
    await Promise.all(batch);
  }
}

/**
 * The object stores' rows (gcs, s3): get and head of latest with `few` and with `many`
 * versions of one name, filled 16 puts at a time so that the emulator keeps up.
 */
export function latestAtScaleRows(few: number, many: number): GrowthRow[] {
  const row = (label: string, probe: Probe): GrowthRow => ({
    label,
    small: (service) => fillVersions(service, "doc", few, 16),
    large: (service) => fillVersions(service, "doc", many, 16),
    probe,
    bound: 1.5,
  });
  return [
    row("get latest", (service) => service.get(BENCH_SCOPE, "doc")),
    row("head latest", (service) => service.head(BENCH_SCOPE, "doc")),
  ];
}
