import { type Fault, FaultProxy, type FaultProxyOptions } from "@artifact-kit/test-proxy";
import type { FaultKind } from "./armed-fault.js";
import { checkLane } from "./check.js";
import { type LaneServices, runLane } from "./lane.js";
import { SeededRandom } from "./random.js";
import { ServerRelay } from "./relay.js";

/** A backend under trial: how to reach its server and how to open a fresh store on it. */
export interface FaultTrialTarget {
  readonly backend: string;
  readonly serverEndpoint: string;
  readonly proxyOptions?: FaultProxyOptions;
  /** The backend's own refusal (its 503), for the proxy to give. */
  readonly unavailable: Fault;
  /** Size of the occasional large streamed upload, if the backend stores those differently. */
  readonly largeUploadBytes?: number;
  /** A fresh store: `subject` through the proxy at `proxyEndpoint`, `observer` past it. */
  openLane(proxyEndpoint: string): Promise<LaneServices>;
}

export interface FaultTrialOptions {
  /** Trial i runs with seed `seed + i`: a failing trial replays alone with its seed. */
  readonly seed: number;
  readonly trials: number;
  readonly operationsPerTrial: number;
  /** Trials run at once (each on a store, proxy and relay of its own). */
  readonly parallel: number;
}

export interface FaultTrialReport {
  readonly backend: string;
  readonly seeds: string;
  readonly trials: number;
  readonly operations: number;
  /** Operations that failed, by error code (a fault may fail one, as a network does). */
  readonly failedOperations: Readonly<Record<string, number>>;
  /** Faults that hit a request (an armed fault misses when its operation makes fewer). */
  readonly faults: number;
  readonly faultsByKind: Readonly<Record<FaultKind, number>>;
  readonly violations: readonly string[];
  /** Unhandled rejections and uncaught exceptions seen while the trials ran. */
  readonly unhandled: readonly string[];
}

/** Runs seeded fault trials against `target` and checks every lane's promises afterwards. */
export async function runFaultTrials(
  target: FaultTrialTarget,
  options: FaultTrialOptions,
): Promise<FaultTrialReport> {
  const unhandled: string[] = [];
  const onUnhandled = (error: unknown) => unhandled.push(String(error));
  process.on("unhandledRejection", onUnhandled);
  process.on("uncaughtException", onUnhandled);
  const byKind: Record<FaultKind, number> = { "drop-response": 0, unavailable: 0, delay: 0 };
  const violations: string[] = [];
  let operations = 0;
  const failedOperations: Record<string, number> = {};
  const runTrial = async (seed: number) => {
    const relay = await ServerRelay.start(target.serverEndpoint);
    const proxy = await FaultProxy.start(relay.endpoint, target.proxyOptions);
    const services = await target.openLane(proxy.endpoint);
    try {
      const setup = {
        services,
        proxy,
        relay,
        unavailable: target.unavailable,
        ...(target.largeUploadBytes ? { largeUploadBytes: target.largeUploadBytes } : {}),
      };
      const log = await runLane(seed, new SeededRandom(seed), setup, options.operationsPerTrial);
      operations += log.operations;
      for (const [code, count] of Object.entries(log.failures)) {
        failedOperations[code] = (failedOperations[code] ?? 0) + count;
      }
      for (const fault of log.faults) if (fault.fired) byKind[fault.kind] += 1;
      violations.push(...(await checkLane(log, services.observer)));
    } finally {
      await Promise.all([services.subject.close(), services.observer.close()]);
      await proxy.close();
      await relay.close();
    }
  };
  try {
    const seeds = Array.from({ length: options.trials }, (_, i) => options.seed + i);
    await inPool(seeds, options.parallel, runTrial);
  } finally {
    process.off("unhandledRejection", onUnhandled);
    process.off("uncaughtException", onUnhandled);
  }
  return {
    backend: target.backend,
    seeds: `${options.seed}..${options.seed + options.trials - 1}`,
    trials: options.trials,
    operations,
    failedOperations,
    faults: Object.values(byKind).reduce((sum, n) => sum + n, 0),
    faultsByKind: byKind,
    violations,
    unhandled,
  };
}

async function inPool<T>(items: T[], size: number, run: (item: T) => Promise<void>) {
  const queue = [...items];
  const worker = async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await run(item);
  };
  await Promise.all(Array.from({ length: Math.min(size, items.length) }, worker));
}
