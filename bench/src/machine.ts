import { cpus, loadavg, totalmem } from "node:os";

/** What the figures were measured on, printed above every table. */
export function describeMachine(): string {
  const processors = cpus();
  const model = processors[0]?.model.trim() ?? "unknown CPU";
  const memoryGiB = (totalmem() / 1024 ** 3).toFixed(0);
  const load = loadavg()
    .map((value) => value.toFixed(2))
    .join(" ");
  return `${model}, ${processors.length} cores, ${memoryGiB} GiB; Node ${process.version} on ${process.platform}; load average at start ${load}`;
}
