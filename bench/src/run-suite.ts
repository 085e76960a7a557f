import {
  type Measurement,
  type MeasureOptions,
  measureAll,
  type NamedWorkload,
} from "./measure.js";
import { formatTable } from "./report.js";
import type { Suite } from "./suite.js";

export interface RunOptions extends MeasureOptions {
  /**
   * Whole passes over the suite. Each cell reports its median pass, so that a burst of load
   * from other processes during one pass moves one sample of a ratio, not the ratio.
   */
  readonly rounds: number;
}

/** The passes a suite runs: `--rounds`, or the suite's minimum if that is more. */
export function roundsOf(suite: Suite, options: RunOptions): number {
  return Math.max(options.rounds, suite.minRounds ?? 1);
}

/** Measures every cell of a suite in one process and returns its table. */
export async function runSuite(suite: Suite, options: RunOptions): Promise<string> {
  const idOf = (rowIndex: number, column: string) => `${suite.title} #${rowIndex} ${column}`;
  // Each pass starts each row at another column, so that no column always runs right after
  // another row's allocations or always first after them.
  const workloadsOfPass = (pass: number): NamedWorkload[] =>
    suite.rows.flatMap((row, rowIndex) =>
      rotate(suite.columns, pass).flatMap((column) => {
        const workload = row.workloads[column.id];
        return workload ? [{ id: idOf(rowIndex, column.id), workload, batch: row.batch }] : [];
      }),
    );
  const measureOptions = { ...options, minSamples: suite.minSamples ?? options.minSamples };
  try {
    const passes: Map<string, Measurement>[] = [];
    for (let round = 0; round < roundsOf(suite, options); round += 1) {
      passes.push(await measureAll(workloadsOfPass(round), measureOptions));
    }
    const table = formatTable(suite, (row, column) =>
      medianPass(passes, idOf(suite.rows.indexOf(row), column)),
    );
    const appendix = suite.appendix?.();
    return appendix ? `${table}\n\n${appendix}` : table;
  } finally {
    await suite.close();
  }
}

function medianPass(passes: Map<string, Measurement>[], id: string): Measurement | undefined {
  const measured = passes.flatMap((pass) => pass.get(id) ?? []);
  measured.sort((a, b) => a.meanMs - b.meanMs);
  return measured[Math.floor(measured.length / 2)];
}

function rotate<T>(items: readonly T[], by: number): T[] {
  const start = by % Math.max(items.length, 1);
  return [...items.slice(start), ...items.slice(0, start)];
}
