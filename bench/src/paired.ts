import { randomInt } from "node:crypto";

/**
 * A paired comparison: many short rounds, each timing the baseline and the subject back to
 * back (ABBA: the order alternates), so that load from other processes, which drifts over
 * seconds, lands on both halves of a pair. The statistic is the median of per-pair time
 * ratios, whose spread is given by a bootstrap interval, not the ratio of two means taken
 * minutes apart.
 */
export interface PairedSide {
  /** Untimed, before each timed batch (e.g. rebuild a store that has grown too large). */
  before?(): Promise<void>;
  /** One operation. */
  run(): Promise<unknown>;
}

export interface PairedOptions {
  readonly pairs: number;
  /** Operations per timed batch: enough that one batch lasts well above the timer's grain. */
  readonly batch: number;
  /** Untimed pairs run first, so that both sides are compiled and warm. */
  readonly warmupPairs: number;
}

export interface PairedResult {
  /** Per operation, in microseconds: medians over pairs. */
  readonly baselineMicros: number;
  readonly subjectMicros: number;
  /** Median of the per-pair ratios subject/baseline. */
  readonly medianRatio: number;
  /** 95% bootstrap interval of that median. */
  readonly ratioInterval: readonly [number, number];
  /** 10th and 90th percentiles of the per-pair ratios: how much one pair varies. */
  readonly ratioP10: number;
  readonly ratioP90: number;
  /** Fastest batch of each side, per operation in microseconds: the least disturbed. */
  readonly baselineMinMicros: number;
  readonly subjectMinMicros: number;
  /**
   * Median per-pair ratio of the process's CPU time (user and system, every thread, the
   * file system's thread pool included) per operation, subject/baseline: what each side
   * costs in CPU, which a loaded machine rations, apart from how long it waited for it.
   */
  readonly medianCpuRatio: number;
  readonly pairs: number;
}

export async function comparePaired(
  baseline: PairedSide,
  subject: PairedSide,
  options: PairedOptions,
): Promise<PairedResult> {
  const cpuTimes = new Map<PairedSide, number>();
  const timeBatch = async (side: PairedSide): Promise<number> => {
    await side.before?.();
    const cpu = process.cpuUsage();
    const start = performance.now();
    for (let i = 0; i < options.batch; i += 1) await side.run();
    const elapsed = performance.now() - start;
    const used = process.cpuUsage(cpu);
    cpuTimes.set(side, (used.user + used.system) / options.batch);
    return (elapsed * 1000) / options.batch;
  };
  const baselineTimes: number[] = [];
  const subjectTimes: number[] = [];
  const cpuRatios: number[] = [];
  for (let pair = -options.warmupPairs; pair < options.pairs; pair += 1) {
    let a: number;
    let b: number;
    if (pair % 2 === 0) {
      a = await timeBatch(baseline);
      b = await timeBatch(subject);
    } else {
      b = await timeBatch(subject);
      a = await timeBatch(baseline);
    }
    if (pair < 0) continue;
    baselineTimes.push(a);
    subjectTimes.push(b);
    cpuRatios.push((cpuTimes.get(subject) as number) / (cpuTimes.get(baseline) as number));
  }
  const ratios = subjectTimes.map((time, i) => time / (baselineTimes[i] as number));
  return {
    baselineMicros: median(baselineTimes),
    subjectMicros: median(subjectTimes),
    medianRatio: median(ratios),
    ratioInterval: bootstrapMedianInterval(ratios),
    ratioP10: quantile(ratios, 0.1),
    ratioP90: quantile(ratios, 0.9),
    baselineMinMicros: Math.min(...baselineTimes),
    subjectMinMicros: Math.min(...subjectTimes),
    medianCpuRatio: median(cpuRatios),
    pairs: ratios.length,
  };
}

/** Times `run` alone: the median over `rounds` batches, per operation in microseconds. */
export async function timeAlone(
  run: () => unknown,
  options: { rounds: number; batch: number },
): Promise<number> {
  const times: number[] = [];
  for (let round = 0; round < options.rounds; round += 1) {
    const start = performance.now();
    for (let i = 0; i < options.batch; i += 1) await run();
    times.push(((performance.now() - start) * 1000) / options.batch);
  }
  return median(times);
}

export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((x, y) => x - y);
  const position = (sorted.length - 1) * q;
  const low = Math.floor(position);
  const high = Math.ceil(position);
  const lowValue = sorted[low] as number;
  return lowValue + ((sorted[high] as number) - lowValue) * (position - low);
}

/** The percentile bootstrap 95% interval of the median, from 2,000 resamples. */
function bootstrapMedianInterval(values: readonly number[]): [number, number] {
  const medians: number[] = [];
  const resample = new Array<number>(values.length);
  for (let i = 0; i < 2_000; i += 1) {
    for (let j = 0; j < values.length; j += 1) {
      resample[j] = values[randomInt(values.length)] as number;
    }
    medians.push(median(resample));
  }
  return [quantile(medians, 0.025), quantile(medians, 0.975)];
}
