import { type MeasureOptions, measureAll, type NamedWorkload } from "./measure.js";
import { formatTable } from "./report.js";
import type { Suite } from "./suite.js";

/** Measures every cell of a suite in one run and returns its table. */
export async function runSuite(suite: Suite, options: MeasureOptions): Promise<string> {
  const idOf = (rowIndex: number, column: string) => `${suite.title} #${rowIndex} ${column}`;
  const workloads: NamedWorkload[] = suite.rows.flatMap((row, rowIndex) =>
    suite.columns.flatMap((column) => {
      const workload = row.workloads[column.id];
      return workload ? [{ id: idOf(rowIndex, column.id), workload, batch: row.batch }] : [];
    }),
  );
  try {
    const measured = await measureAll(workloads, options);
    return formatTable(suite, (row, column) => measured.get(idOf(suite.rows.indexOf(row), column)));
  } finally {
    await suite.close();
  }
}
