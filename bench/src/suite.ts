import type { Workload } from "./measure.js";

/** One column of a table: a store or way of running, e.g. "ours", "peer", "floor". */
interface Column {
  readonly id: string;
  readonly label: string;
}

/**
 * A ratio between two columns of the same row, taken within one run.
 * "throughput": subject ops/s over baseline ops/s (higher is better for the subject).
 * "time": subject latency over baseline latency (lower is better for the subject).
 * "p99": subject 99th-percentile latency over baseline's (lower is better for the subject).
 */
export interface Comparison {
  readonly id: string;
  readonly label: string;
  readonly subject: string;
  readonly baseline: string;
  readonly metric: "throughput" | "time" | "p99";
}

/** A comparison in one line: `id`, its label, and `subject` over `baseline` by `metric`. */
export function compare(
  id: string,
  label: string,
  subject: string,
  baseline: string,
  metric: Comparison["metric"],
): Comparison {
  return { id, label, subject, baseline, metric };
}

/** A goal from the issue on one comparison of one row. */
export interface Target {
  readonly comparison: string;
  readonly bound: number;
  readonly holds: "atLeast" | "atMost";
}

export interface Row {
  readonly label: string;
  /** Operations per timed sample; see `NamedWorkload.batch`. */
  readonly batch: number;
  /** The workload of each column that applies to this row. */
  readonly workloads: Readonly<Record<string, Workload>>;
  readonly target?: Target;
}

export interface Suite {
  readonly title: string;
  readonly columns: readonly Column[];
  readonly comparisons: readonly Comparison[];
  readonly rows: readonly Row[];
  /** The fewest passes (rounds) this suite's medians take, whatever `--rounds` asks. */
  readonly minRounds?: number;
  /** Overrides the run's minimum samples per cell, for suites whose operations are few and noisy. */
  readonly minSamples?: number;
  /** Show each cell's 99th-percentile latency too, for suites that compare tails. */
  readonly showP99?: boolean;
  /** Untimed, after the last pass: what the suite counted beside the latencies, in Markdown. */
  appendix?(): string;
  /** Untimed: release stores, services and temporary directories. */
  close(): Promise<void>;
}
