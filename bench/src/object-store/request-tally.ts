import type { Workload } from "../measure.js";
import type { CountingProxy } from "./counting-proxy.js";

interface Count {
  requests: number;
  operations: number;
}

/**
 * Requests per operation of each cell, read off the counting proxy around every timed call
 * (warm-up included). Calls run one at a time, so every request between the start and the
 * end of a call is that call's.
 */
export class RequestTally {
  readonly #proxy: CountingProxy;
  readonly #counts = new Map<string, Count>();

  constructor(proxy: CountingProxy) {
    this.#proxy = proxy;
  }

  /** `workload`, its requests counted under `row` and `column`. */
  counted(row: string, column: string, workload: Workload): Workload {
    const count: Count = { requests: 0, operations: 0 };
    this.#counts.set(keyOf(row, column), count);
    return {
      ...workload,
      run: async () => {
        const before = this.#proxy.requests;
        const result = await workload.run();
        count.requests += this.#proxy.requests - before;
        count.operations += 1;
        return result;
      },
    };
  }

  /** A Markdown table of the mean requests per operation of every counted cell. */
  table(rows: readonly string[], columns: readonly { id: string; label: string }[]): string {
    const header = ["requests per operation", ...columns.map((column) => column.label)];
    const lines = [header, header.map(() => "---")];
    for (const row of rows) {
      lines.push([
        row,
        ...columns.map((column) => {
          const count = this.#counts.get(keyOf(row, column.id));
          return count && count.operations > 0
            ? (count.requests / count.operations).toFixed(2)
            : "";
        }),
      ]);
    }
    return lines.map((cells) => `| ${cells.join(" | ")} |`).join("\n");
  }
}

function keyOf(row: string, column: string): string {
  return `${row}\u0000${column}`;
}
