import { Bench } from "tinybench";

/** One timed operation plus the untimed work that keeps it repeatable. */
export interface Workload {
  /** The operation measured. */
  run(): Promise<unknown>;
  /** Untimed, once before the iterations of a phase (warm-up, then run): build the state read. */
  prepare?(): Promise<void>;
  /** Untimed, after every sample: e.g. drop what puts stored so memory stays bounded. */
  afterSample?(): Promise<void>;
  /**
   * Untimed, after the last sample of each phase: stop background work. tinybench warms up
   * every workload before it runs any, so work left running would load the others' runs.
   */
  endPhase?(): Promise<void>;
  /** Untimed, once after the last sample: release what `prepare` opened. */
  finish?(): Promise<void>;
}

export interface Measurement {
  /** Mean operations per second. */
  readonly opsPerSecond: number;
  /** Mean latency of one operation, in milliseconds. */
  readonly meanMs: number;
  /** Relative margin of error of the mean latency, in percent. */
  readonly rmePercent: number;
  /** 99th percentile of the sampled latencies, in milliseconds. */
  readonly p99Ms: number;
  readonly samples: number;
}

export interface MeasureOptions {
  /** Time budget per workload in milliseconds (tinybench keeps sampling until it is spent). */
  readonly timeMs: number;
  readonly warmupMs: number;
  /** Minimum samples per workload. */
  readonly minSamples: number;
}

export interface NamedWorkload {
  readonly id: string;
  readonly workload: Workload;
  /**
   * Operations per sample. Sub-microsecond operations are batched so that the timer call and
   * the await of each sample do not dominate what is measured; each sample records the mean.
   */
  readonly batch: number;
}

/**
 * Runs every workload in one tinybench run, one after another, so that their ratios come from
 * the same process, heap and machine load.
 */
export async function measureAll(
  workloads: readonly NamedWorkload[],
  options: MeasureOptions,
): Promise<Map<string, Measurement>> {
  const bench = new Bench({
    time: options.timeMs,
    warmupTime: options.warmupMs,
    iterations: options.minSamples,
    warmupIterations: 2,
    throws: true,
  });
  for (const { id, workload, batch } of workloads) {
    bench.add(id, async () => timeBatch(bench, workload, batch), {
      async: true,
      beforeAll: async () => {
        await workload.prepare?.();
        settleHeap();
      },
      ...(workload.afterSample && { afterEach: () => workload.afterSample?.() }),
      afterAll: async (mode) => {
        await workload.endPhase?.();
        if (mode === "run") await workload.finish?.();
      },
    });
  }
  await bench.run();
  const results = new Map<string, Measurement>();
  for (const task of bench.tasks) {
    const result = task.result;
    if (result.state !== "completed") {
      throw new Error(`benchmark "${task.name}" ended ${result.state}`);
    }
    results.set(task.name, {
      opsPerSecond: 1000 / result.latency.mean,
      meanMs: result.latency.mean,
      rmePercent: result.latency.rme,
      p99Ms: result.latency.p99,
      samples: result.latency.samplesCount,
    });
  }
  return results;
}

/**
 * Collects the garbage earlier workloads left (untimed), so that no workload pays for another's;
 * needs `node --expose-gc`, which the `bench` script passes.
 */
function settleHeap(): void {
  if (!gc) throw new Error("run the bench with node --expose-gc");
  gc();
}

async function timeBatch(bench: Bench, workload: Workload, batch: number) {
  const start = bench.now();
  for (let i = 0; i < batch; i += 1) await workload.run();
  const elapsed = bench.now() - start;
  return { overriddenDuration: elapsed / batch, overriddenIterationCost: elapsed };
}
