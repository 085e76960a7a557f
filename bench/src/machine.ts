import { cpus, loadavg, totalmem } from "node:os";

/** What the figures were measured on, printed above every table. */
export function describeMachine(): string {
  const processors = cpus();
  const model = processors[0]?.model.trim() ?? "unknown CPU";
  const memoryGiB = (totalmem() / 1024 ** 3).toFixed(0);
  return `${model}, ${processors.length} cores, ${memoryGiB} GiB; Node ${process.version} on ${process.platform}; load average at start ${loadAverage()}`;
}

/** The 1, 5 and 15 minute load averages, printed before and after each run. */
export function loadAverage(): string {
  return loadavg()
    .map((value) => value.toFixed(2))
    .join(" ");
}
