import { invalidArgument } from "@artifact-kit/core";
import { FsArtifactService, type RepairReport } from "@artifact-kit/fs";
import type { Command } from "commander";
import { EXIT_CODES } from "../exit-codes.js";
import { type GlobalOptions, storeLocation } from "../globals.js";
import { action, emit } from "../output.js";
import { parseCount, parseMilliseconds } from "../parse-count.js";
import { startProgress } from "../progress.js";
import { openStore, parseStoreUri } from "../store.js";

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
  /** Keyed puts a crash cut short, kept for a retry with their key (from the last walk). */
  readonly awaitingRetry: number;
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
    awaitingRetry: last.awaitingRetry,
    corrupt: last.corrupt,
    unremovable: [...unremovable],
    complete: last.complete,
    batches,
  };
}

/** What the object-store and postgres adapters' `repair()` take and answer. */
interface RepairableStore {
  repair(options?: { olderThanMs?: number }): Promise<Readonly<Record<string, number>>>;
}

function isRepairable(service: object): service is RepairableStore {
  return typeof (service as Partial<RepairableStore>).repair === "function";
}

/**
 * s3, gcs, azure and postgres: one `repair()` call, which removes abandoned uploads (and
 * their staging) older than `minAgeMs` (default: the adapter's own) and never touches
 * published versions. Its report's counts are printed as they come.
 */
async function repairRemote(
  globals: GlobalOptions,
  minAgeMs: number | undefined,
): Promise<Readonly<Record<string, number>>> {
  const location = storeLocation(globals);
  const service = await openStore(location, {
    ...(globals.gcsEndpoint === undefined ? {} : { gcsEndpoint: globals.gcsEndpoint }),
  });
  try {
    if (!isRepairable(service)) {
      throw invalidArgument("store", `${location.kind}: stores have nothing to repair`);
    }
    return await service.repair(minAgeMs === undefined ? {} : { olderThanMs: minAgeMs });
  } finally {
    await service.close();
  }
}

export function registerRepair(program: Command): void {
  program
    .command("repair")
    .description(
      "remove what crashed writers left: fs staging leftovers and unpublished payloads (and report corrupt artifacts); abandoned uploads on s3, gcs, azure and postgres",
    )
    .option(
      "--min-age-ms <ms>",
      "only remove leftovers at least this old (default: fs recoveryGraceMs, 5 minutes; s3, gcs, azure 24 h; postgres uploadLeaseMs)",
    )
    .option("--batch <n>", "fs: most files removed per pass", "1000")
    .action(
      action<[], RepairOptions>(async (options) => {
        const batch = parseCount(options.batch, "batch");
        const minAgeMs =
          options.minAgeMs === undefined
            ? undefined
            : parseMilliseconds(options.minAgeMs, "minAgeMs");
        const location = parseStoreUri(options.store);
        if (location.kind !== "fs") {
          const report = await repairRemote(options, minAgeMs);
          const counts = Object.entries(report).map(([what, count]) => `${what} ${count}`);
          emit(options, report, [`repair: ${counts.join(", ")}`]);
          return EXIT_CODES.ok;
        }
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
          ...(summary.awaitingRetry > 0
            ? [
                `left ${summary.awaitingRetry} keyed puts a crash had cut short unpublished, for a retry with their key`,
              ]
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
