import {
  ARTIFACT_ERROR_CODES,
  ArtifactError,
  type ArtifactErrorCode,
  invalidArgument,
  type Scope,
} from "@artifact-kit/core";
import { type Command, Option } from "commander";
import {
  copyProgress,
  describeRecord,
  PROGRESS_MODES,
  type ProgressMode,
} from "../copy/progress.js";
import { runCopy } from "../copy/run.js";
import { distinctScopes, parseScopeArgument, readScopesFile, SCOPE_FORM } from "../copy/scopes.js";
import type { CopySummary } from "../copy/tally.js";
import { EXIT_CODES, exitCodeFor } from "../exit-codes.js";
import { describeStore, type GlobalOptions } from "../globals.js";
import { action, emit } from "../output.js";
import { withCheckedListings } from "../pages.js";
import { parseCount } from "../parse-count.js";
import { scopeFromOptions } from "../scope-options.js";
import { openStore, parseStoreUri, type StoreLocation } from "../store.js";

interface CopyOptions {
  scope?: string[];
  scopesFile?: string;
  prefix?: string;
  reread: boolean;
  concurrency: string;
  progress: ProgressMode;
}

/** Most names copied at once: each holds one version in flight (at most one 1 MiB buffer or one chunk). */
const MAX_CONCURRENCY = 64;

const DESCRIPTION = [
  "Copy every version of the given scopes from one store to another, verified and resumable.",
  `Stores cannot list their scopes, so name them: --scope ${SCOPE_FORM} (repeatable; an id holding / or % writes it %2F, %25), --scopes-file (one scope per line), or --app/--user/--session.`,
  "Each version becomes the next version of the same scope and name on the target, in ascending order, with its bytes, mimeType and metadata, and its SHA-256 is checked against the target's record.",
  "The target allocates version numbers and creation times (no store takes them from a caller): numbers match the source's only where the source has no gaps, the target's name starts empty and no copy was cut short (an interrupted put may burn a version). --json maps every source version to its copy, and each copy's idempotencyKey (\"artifact-kit-copy vN ...\") names its source version.",
  "A rerun skips what is already there: rerun an interrupted copy to continue it.",
].join("\n\n");

export function registerCopy(program: Command): void {
  program
    .command("copy")
    .summary("copy every version of the given scopes between two stores, verified and resumable")
    .description(DESCRIPTION)
    .argument("<from>", "the source store URI (the global --store is not used)")
    .argument("<to>", "the target store URI")
    .option(
      "--scope <scope>",
      `a scope to copy, ${SCOPE_FORM} (repeatable)`,
      (scope: string, previous: string[] | undefined) => [...(previous ?? []), scope],
    )
    .option("--scopes-file <file>", `scopes to copy, one ${SCOPE_FORM} per line (# comments)`)
    .option("--prefix <prefix>", "only names that start with PREFIX")
    .option(
      "--concurrency <n>",
      `names copied at once, 1..${MAX_CONCURRENCY} (each name's versions in order)`,
      "4",
    )
    .option("--reread", "read every copy back from the target and check its SHA-256", false)
    .addOption(
      new Option("--progress <mode>", "auto: a bar on a terminal, lines otherwise")
        .choices(PROGRESS_MODES)
        .default("auto"),
    )
    .action(
      action<[string, string], CopyOptions>(async (options, from, to) => {
        const concurrency = parseConcurrency(options.concurrency);
        const scopes = await scopesOf(options);
        const locations = { from: parseStoreUri(from), to: parseStoreUri(to) };
        refuseSameStore(locations.from, locations.to);
        const progress = copyProgress(options.progress, options.json);
        const summary = await withStores(options, locations, async (source, target) => {
          try {
            const tally = await runCopy({
              source,
              target,
              scopes,
              ...(options.prefix === undefined ? {} : { prefix: options.prefix }),
              reread: options.reread,
              concurrency,
              onStart: (total) => progress.start(total),
              onVersion: (record, tally) => progress.version(record, tally),
            });
            return tally.summary();
          } finally {
            progress.stop();
          }
        });
        const stores = { from: describeStore(locations.from), to: describeStore(locations.to) };
        emit(options, { ...stores, scopes, ...summary }, describeSummary(stores, scopes, summary));
        return exitCodeOf(summary);
      }),
    );
}

function parseConcurrency(text: string): number {
  const concurrency = parseCount(text, "concurrency");
  if (concurrency > MAX_CONCURRENCY) {
    throw invalidArgument("concurrency", `must be at most ${MAX_CONCURRENCY}`);
  }
  return concurrency;
}

async function scopesOf(options: GlobalOptions & CopyOptions): Promise<Scope[]> {
  const scopes = (options.scope ?? []).map((text) => parseScopeArgument(text));
  if (options.scopesFile !== undefined) scopes.push(...(await readScopesFile(options.scopesFile)));
  if (options.app !== undefined) scopes.push(scopeFromOptions(options));
  if (scopes.length === 0) {
    throw invalidArgument(
      "scope",
      `name the scopes to copy (stores cannot list them): --scope ${SCOPE_FORM}, --scopes-file FILE or --app`,
    );
  }
  return distinctScopes(scopes);
}

/** Copying a store onto itself would double every version. */
function refuseSameStore(from: StoreLocation, to: StoreLocation): void {
  if (from.kind !== "memory" && identityOf(from) === identityOf(to)) {
    throw invalidArgument("to", `the source and the target are one store (${describeStore(to)})`);
  }
}

/** Where a store is, with everything that tells two stores apart (never a password). */
function identityOf(location: StoreLocation): string {
  if (location.kind !== "postgres") return `${location.kind} ${describeStore(location)}`;
  const url = new URL(location.connectionString);
  url.password = "";
  return `postgres ${url.href} ${location.schema ?? ""}`;
}

type Service = Parameters<typeof withCheckedListings>[0];

async function withStores<T>(
  globals: GlobalOptions,
  locations: { from: StoreLocation; to: StoreLocation },
  body: (source: Service, target: Service) => Promise<T>,
): Promise<T> {
  const endpoint = globals.gcsEndpoint === undefined ? {} : { gcsEndpoint: globals.gcsEndpoint };
  const source = await openStore(locations.from, endpoint);
  try {
    const target = await openStore(locations.to, { ...endpoint, create: true });
    try {
      return await body(withCheckedListings(source), withCheckedListings(target));
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}

function describeSummary(
  stores: { from: string; to: string },
  scopes: readonly Scope[],
  summary: CopySummary,
): string[] {
  return [
    `copy ${stores.from} -> ${stores.to}: ${summary.total} versions in ${scopes.length} scope${scopes.length === 1 ? "" : "s"}`,
    `  copied ${summary.copied} (${summary.bytes} B), already there ${summary.skipped}, vanished ${summary.vanished}, failed ${summary.failed}`,
    ...(summary.renumbered === 0
      ? ["  every copy has its source's version number"]
      : [
          `  ${summary.renumbered} copies have another version number than their source (the target allocates them; --json maps each)`,
        ]),
    "  creation times are the target's: no store takes a caller's createdAt",
    ...summary.versions
      .filter((record) => record.outcome === "failed")
      .map((record) => `  ${describeRecord(record)}`),
  ];
}

/** 0 when every version is there; else the first failure's exit code (5 for order). */
function exitCodeOf(summary: CopySummary): number {
  const failure = summary.versions.find((record) => record.outcome === "failed");
  if (failure === undefined) return EXIT_CODES.ok;
  const code = ARTIFACT_ERROR_CODES.find((known) => known === failure.code);
  return code === undefined
    ? EXIT_CODES.integrity
    : exitCodeFor(new ArtifactError(code as ArtifactErrorCode, failure.message ?? ""));
}
