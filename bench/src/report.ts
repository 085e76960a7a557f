import type { Measurement } from "./measure.js";
import type { Comparison, Row, Suite, Target } from "./suite.js";

type Verdict = "PASS" | "MISS";

/** The measured value of one ratio of one row, or undefined if a side was not measured. */
function ratioOf(
  comparison: Comparison,
  measured: (column: string) => Measurement | undefined,
): number | undefined {
  const subject = measured(comparison.subject);
  const baseline = measured(comparison.baseline);
  if (!subject || !baseline) return undefined;
  switch (comparison.metric) {
    case "throughput":
      return subject.opsPerSecond / baseline.opsPerSecond;
    case "time":
      return subject.meanMs / baseline.meanMs;
    case "p99":
      return subject.p99Ms / baseline.p99Ms;
  }
}

function verdictOf(target: Target, ratio: number): Verdict {
  const met = target.holds === "atLeast" ? ratio >= target.bound : ratio <= target.bound;
  return met ? "PASS" : "MISS";
}

/** The suite as a Markdown table: one cell per measured column, its ratios, its target. */
export function formatTable(
  suite: Suite,
  measured: (row: Row, column: string) => Measurement | undefined,
): string {
  const header = [
    "operation",
    ...suite.columns.map((column) => column.label),
    ...suite.comparisons.map((comparison) => comparison.label),
    "target",
    "result",
  ];
  const lines = [header, header.map(() => "---")];
  for (const row of suite.rows) {
    const ratios = suite.comparisons.map((comparison) =>
      ratioOf(comparison, (column) => measured(row, column)),
    );
    lines.push([
      row.label,
      ...suite.columns.map((column) => formatCell(measured(row, column.id), suite.showP99)),
      ...ratios.map((ratio) => (ratio === undefined ? "" : `${ratio.toFixed(2)}x`)),
      ...targetCells(suite, row, ratios),
    ]);
  }
  return lines.map((cells) => `| ${cells.join(" | ")} |`).join("\n");
}

function targetCells(suite: Suite, row: Row, ratios: (number | undefined)[]): [string, string] {
  const target = row.target;
  if (!target) return ["", ""];
  const index = suite.comparisons.findIndex((comparison) => comparison.id === target.comparison);
  const comparison = suite.comparisons[index];
  const ratio = ratios[index];
  if (!comparison || ratio === undefined) throw new Error(`row "${row.label}": bad target`);
  const sign = target.holds === "atLeast" ? ">=" : "<=";
  return [`${comparison.label} ${sign} ${target.bound}x`, verdictOf(target, ratio)];
}

function formatCell(measurement: Measurement | undefined, showP99 = false): string {
  if (!measurement) return "";
  const rate = Math.round(measurement.opsPerSecond).toLocaleString("en-US");
  const p99 = showP99 ? `, p99 ${formatDuration(measurement.p99Ms)}` : "";
  return `${rate}/s (${formatDuration(measurement.meanMs)} ±${measurement.rmePercent.toFixed(0)}%${p99})`;
}

function formatDuration(ms: number): string {
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms >= 1) return `${ms.toFixed(2)} ms`;
  return `${(ms * 1000).toFixed(2)} µs`;
}
