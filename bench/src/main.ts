import { parseArgs } from "node:util";
import { describeMachine } from "./machine.js";
import type { MeasureOptions } from "./measure.js";
import { memorySuite } from "./memory/suite.js";
import { runSuite } from "./run-suite.js";
import type { Suite } from "./suite.js";

const SUITES: Readonly<Record<string, () => Suite>> = { memory: memorySuite };

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    "time-ms": { type: "string", default: "400" },
    "warmup-ms": { type: "string", default: "100" },
  },
});
const names = positionals.length > 0 ? positionals : Object.keys(SUITES);
const options: MeasureOptions = {
  timeMs: Number(values["time-ms"]),
  warmupMs: Number(values["warmup-ms"]),
  minSamples: 8,
};

console.log(describeMachine());
for (const name of names) {
  const suite = SUITES[name];
  if (!suite) throw new Error(`unknown suite "${name}"; known: ${Object.keys(SUITES).join(", ")}`);
  const startedAt = performance.now();
  const table = await runSuite(suite(), options);
  const seconds = ((performance.now() - startedAt) / 1000).toFixed(0);
  console.log(`\n## ${name} (measured in ${seconds} s)\n\n${table}`);
}
