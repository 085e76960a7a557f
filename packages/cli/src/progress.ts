import cliProgress from "cli-progress";

/** Transfers at least this large show a progress bar (on a terminal). */
export const PROGRESS_THRESHOLD_BYTES = 4 * 1024 * 1024;

export interface Progress {
  /** Adds `amount` to what is done. */
  advance(amount: number): void;
  /** Changes the total (when it was only an estimate). */
  setTotal(total: number): void;
  stop(): void;
}

const SILENT: Progress = { advance() {}, setTotal() {}, stop() {} };

/**
 * A bar on stderr, so stdout (and --json) stays clean. cli-progress draws nothing when
 * stderr is not a terminal; with --json there is no bar at all.
 */
export function startProgress(
  label: string,
  total: number,
  options: { json: boolean; unit?: "bytes" | "items" },
): Progress {
  if (options.json) return SILENT;
  const bytes = options.unit !== "items";
  const bar = new cliProgress.SingleBar(
    {
      stream: process.stderr,
      format: bytes
        ? `${label} |{bar}| {percentage}% {doneMiB}/{totalMiB} MiB`
        : `${label} |{bar}| {value}/{total}`,
      hideCursor: true,
      clearOnComplete: true,
    },
    cliProgress.Presets.shades_classic,
  );
  const mib = (n: number) => (n / 1024 / 1024).toFixed(1);
  let done = 0;
  let expected = total;
  bar.start(total, 0, { doneMiB: mib(0), totalMiB: mib(total) });
  return {
    advance(amount) {
      done += amount;
      bar.update(done, { doneMiB: mib(done), totalMiB: mib(expected) });
    },
    setTotal(newTotal) {
      expected = newTotal;
      bar.setTotal(newTotal);
    },
    stop() {
      bar.stop();
    },
  };
}

/** A bar for a transfer of `size` bytes, or nothing for a small one. */
export function transferProgress(label: string, size: number, json: boolean): Progress {
  return size >= PROGRESS_THRESHOLD_BYTES ? startProgress(label, size, { json }) : SILENT;
}
