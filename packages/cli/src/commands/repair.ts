import { invalidArgument } from "@artifact-kit/core";
import { FsArtifactService, type RepairReport } from "@artifact-kit/fs";
import type { Command } from "commander";
import { EXIT_CODES } from "../exit-codes.js";
import { action, emit } from "../output.js";
import { parseCount, parseMilliseconds } from "../parse-count.js";
import { startProgress } from "../progress.js";
import { parseStoreUri } from "../store.js";

interface RepairOptions {
  minAgeMs?: string;
  batch: string;
}

interface RepairSummary {
  /** Leftovers removed over all batches. */
  readonly removed: number;
  /** From the last, complete walk. */
  readonly scanned: number;
  readonly reservationsPreserved: number;
  /** Keyed publications a crash cut short, finished over all batches. */
  readonly finished: number;
  readonly corrupt: number;
  /** Leftovers that could not be removed (paths relative to the root), from every batch. */
  readonly unremovable: readonly string[];
  readonly complete: boolean;
  readonly batches: number;
}

/**
 * Calls `repair({ limit: batch })` until a walk completes, so the bar moves as leftovers go.
 * A walk cut short that removed nothing (a directory over maxScanEntries) cannot progress:
 * the summary says `complete: false` instead of looping.
 */
async function repairInBatches(
  service: FsArtifactService,
  batch: number,
  minAgeMs: number | undefined,
  json: boolean,
): Promise<RepairSummary> {
  const progress = startProgress("repair", batch, { json, unit: "items" });
  let removed = 0;
  let finished = 0;
  const unremovable = new Set<string>();
  let batches = 0;
  let last: RepairReport;
  try {
    do {
      last = await service.repair({
        limit: batch,
        ...(minAgeMs === undefined ? {} : { minAgeMs }),
      });
      batches += 1;
      removed += last.removed;
      finished += last.finished;
      for (const path of last.unremovable) unremovable.add(path);
      progress.setTotal(last.complete ? removed : removed + batch);
      progress.advance(last.removed);
    } while (!last.complete && last.removed > 0);
  } finally {
    progress.stop();
  }
  return {
    removed,
    scanned: last.scanned,
    reservationsPreserved: last.reservationsPreserved,
    finished,
    corrupt: last.corrupt,
    unremovable: [...unremovable],
    complete: last.complete,
    batches,
  };
}

export function registerRepair(program: Command): void {
  program
    .command("repair")
    .description(
      "fs stores: remove staging leftovers and unpublished payloads, and report corrupt artifacts",
    )
    .option(
      "--min-age-ms <ms>",
      "only remove leftovers at least this old (default: the store's recoveryGraceMs, 5 minutes)",
    )
    .option("--batch <n>", "most files removed per pass", "1000")
    .action(
      action<[], RepairOptions>(async (options) => {
        const batch = parseCount(options.batch, "batch");
        const minAgeMs =
          options.minAgeMs === undefined
            ? undefined
            : parseMilliseconds(options.minAgeMs, "minAgeMs");
        const location = parseStoreUri(options.store);
        if (location.kind !== "fs")
          throw invalidArgument("store", "repair applies to fs: stores only");
        const service = await FsArtifactService.open({ root: location.root });
        let summary: RepairSummary;
        try {
          summary = await repairInBatches(service, batch, minAgeMs, options.json);
        } finally {
          await service.close();
        }
        emit(options, summary, [
          `repair: removed ${summary.removed} leftovers in ${summary.batches} passes, scanned ${summary.scanned} entries`,
          `kept ${summary.reservationsPreserved} version reservations (they hold the version high-water)`,
          ...(summary.finished > 0
            ? [`finished ${summary.finished} keyed publications a crash had cut short`]
            : []),
          ...summary.unremovable.map((path) => `UNREMOVABLE: ${path} (remove it by hand)`),
          summary.corrupt > 0
            ? `CORRUPT: ${summary.corrupt} published versions have lost their data`
            : "no corrupt versions",
          ...(summary.complete ? [] : ["incomplete: a directory is over maxScanEntries"]),
        ]);
        return summary.corrupt > 0 ? EXIT_CODES.integrity : EXIT_CODES.ok;
      }),
    );
}
