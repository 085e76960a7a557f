import type { ArtifactService } from "@artifact-kit/core";
import { BENCH_SCOPE } from "../kit-store.js";
import type { Workload } from "../measure.js";
import { compare, type Row, type Suite } from "../suite.js";

/** What a growth row works on: a service, or a service with what its floor needs beside it. */
interface Subject {
  close(): Promise<void>;
}

/** The operation a growth row times, on a subject already filled to one store size. */
type Probe<S> = (subject: S, round: number) => Promise<unknown>;

/** How to fill a fresh subject to one store size (untimed). */
type Fill<S> = (subject: S) => Promise<void>;

export interface GrowthRow<S extends Subject = ArtifactService> {
  readonly label: string;
  /**
   * The same operation at the small and the large store size. Rows whose fills are the same
   * function share one filled subject per size (their probes must then only read).
   */
  readonly small: Fill<S>;
  readonly large: Fill<S>;
  readonly probe: Probe<S>;
  /** The probe of the small store, when it cannot be the same call (default: `probe`). */
  readonly probeSmall?: Probe<S>;
  /**
   * The target: large-store time at most this many times the small-store time. A row
   * without one is a floor: what the backend itself charges at each size, for comparison.
   */
  readonly bound?: number;
  readonly batch?: number;
}

/**
 * A suite that times each operation on a small store and on a large one, side by side in one
 * run, and prints the growth ratio (large time over small time) with PASS / MISS against the
 * bound: per-operation cost must not grow with the number of names or versions stored.
 */
export function growthSuite<S extends Subject = ArtifactService>(options: {
  title: string;
  sizes: { small: string; large: string };
  open: () => Promise<S>;
  rows: readonly GrowthRow<S>[];
  /** Wraps each cell's workload, e.g. to count the requests it makes. */
  count?: (row: string, column: string, workload: Workload) => Workload;
  /** Untimed, after the last pass: what the suite counted beside the latencies. */
  appendix?: () => string;
  close?: () => Promise<void>;
}): Suite {
  const filled = new Map<Fill<S>, Promise<S>>();
  const subjectFilledBy = (fill: Fill<S>): Promise<S> => {
    let subject = filled.get(fill);
    if (!subject) {
      subject = options.open().then(async (opened) => {
        await fill(opened);
        return opened;
      });
      filled.set(fill, subject);
    }
    return subject;
  };
  const workload = (fill: Fill<S>, probe: Probe<S>): Workload => {
    let subject: S | undefined;
    let round = 0;
    return {
      prepare: async () => {
        subject ??= await subjectFilledBy(fill);
      },
      run: () => probe(subject as S, round++),
    };
  };
  const rows: Row[] = options.rows.map((row) => {
    const cells = {
      small: workload(row.small, row.probeSmall ?? row.probe),
      large: workload(row.large, row.probe),
    };
    const count = options.count ?? ((_row, _column, cell) => cell);
    return {
      label: row.label,
      batch: row.batch ?? 1,
      workloads: {
        small: count(row.label, "small", cells.small),
        large: count(row.label, "large", cells.large),
      },
      ...(row.bound === undefined
        ? {}
        : { target: { comparison: "growth", bound: row.bound, holds: "atMost" as const } }),
    };
  });
  return {
    title: options.title,
    // Issue 17 asks for medians of at least 5 rounds.
    minRounds: 5,
    columns: [
      { id: "small", label: options.sizes.small },
      { id: "large", label: options.sizes.large },
    ],
    comparisons: [compare("growth", "large/small time", "large", "small", "time")],
    rows,
    ...(options.appendix ? { appendix: options.appendix } : {}),
    close: async () => {
      const subjects = await Promise.all(filled.values());
      await Promise.all(subjects.map((subject) => subject.close()));
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
