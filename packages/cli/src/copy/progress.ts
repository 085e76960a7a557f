import { startProgress } from "../progress.js";
import { describeScope } from "../scope-options.js";
import type { Tally, VersionRecord } from "./tally.js";

/** auto: a bar when stderr is a terminal (and not --json), lines otherwise. */
export const PROGRESS_MODES = ["auto", "bar", "lines", "none"] as const;
export type ProgressMode = (typeof PROGRESS_MODES)[number];

export interface CopyProgress {
  start(total: number): void;
  version(record: VersionRecord, tally: Tally): void;
  stop(): void;
}

/**
 * Progress on stderr, so stdout keeps the summary. Lines (for logs, pipes and tests): one
 * per settled version, `copy: 12/100 copied app "a" notes/a.txt v3 -> v3`, so a reader
 * can follow, or wait for, the Nth copy.
 */
export function copyProgress(mode: ProgressMode, json: boolean): CopyProgress {
  const resolved = mode === "auto" ? (process.stderr.isTTY && !json ? "bar" : "lines") : mode;
  if (resolved === "none") return { start() {}, version() {}, stop() {} };
  if (resolved === "lines") {
    return {
      start(total) {
        process.stderr.write(`copy: ${total} versions to look at\n`);
      },
      version(record, tally) {
        process.stderr.write(`copy: ${tally.done}/${tally.total} ${describeRecord(record)}\n`);
      },
      stop() {},
    };
  }
  let bar: ReturnType<typeof startProgress> | undefined;
  return {
    start(total) {
      bar = startProgress("copy", total, { json: false, unit: "items" });
    },
    version() {
      bar?.advance(1);
    },
    stop() {
      bar?.stop();
    },
  };
}

export function describeRecord(record: VersionRecord): string {
  const where = `${describeScope(record.scope)} ${JSON.stringify(record.name)} v${record.sourceVersion}`;
  const to = record.targetVersion === undefined ? "" : ` -> v${record.targetVersion}`;
  switch (record.outcome) {
    case "copied":
      return `copied ${where}${to}`;
    case "skipped":
      return `already there ${where}${to}`;
    case "vanished":
      return `vanished ${where} (deleted from the source meanwhile)`;
    case "failed":
      return `FAILED ${where}: ${record.code}: ${record.message}`;
  }
}
