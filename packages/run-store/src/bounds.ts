import {
  quotaExceeded,
  quotaLimitCode,
  RUN_STORE_BOUND_NAMES,
  type RunStoreBounds,
  type RunStoreBoundsOptions,
  validateOptionKeys,
  validatePositiveInteger,
} from "@artifact-kit/core";

const MiB = 1024 * 1024;

export const RUN_STORE_DEFAULTS: RunStoreBounds = Object.freeze({
  maxArtifactsPerRun: 1_000,
  maxBytesPerArtifact: 16 * MiB,
  maxBytesPerRun: 64 * MiB,
  maxRuns: 1_000,
  maxTotalBytes: 256 * MiB,
});

export function resolveBounds(options: unknown): RunStoreBounds {
  const given: RunStoreBoundsOptions = validateOptionKeys(options, RUN_STORE_BOUND_NAMES, "bounds");
  const bounds = { ...RUN_STORE_DEFAULTS };
  for (const name of RUN_STORE_BOUND_NAMES) {
    if (given[name] !== undefined) bounds[name] = validatePositiveInteger(given[name], name);
  }
  return Object.freeze(bounds);
}

/** What a store holds when a registration arrives; both stores keep these counters. */
export interface Usage {
  /** Size of the content already at the path, or undefined for a new path. */
  readonly replacedSize: number | undefined;
  readonly runArtifacts: number;
  readonly runBytes: number;
  readonly runs: number;
  readonly totalBytes: number;
}

/** Throws quota_exceeded (with detail.limit) for the first bound a registration would break. */
export function checkBounds(bounds: RunStoreBounds, usage: Usage, size: number): void {
  // Straight-line comparisons: this runs on every register, the store's hot path.
  const growth = size - (usage.replacedSize ?? 0);
  if (size > bounds.maxBytesPerArtifact) throw exceeded(bounds, "maxBytesPerArtifact");
  // An upsert replaces a present path, so only a new path counts.
  if (usage.replacedSize === undefined && usage.runArtifacts + 1 > bounds.maxArtifactsPerRun) {
    throw exceeded(bounds, "maxArtifactsPerRun");
  }
  if (usage.runBytes + growth > bounds.maxBytesPerRun) throw exceeded(bounds, "maxBytesPerRun");
  // A run exists while it holds a file: its first file creates it.
  if (usage.runArtifacts === 0 && usage.runs + 1 > bounds.maxRuns) {
    throw exceeded(bounds, "maxRuns");
  }
  if (usage.totalBytes + growth > bounds.maxTotalBytes) throw exceeded(bounds, "maxTotalBytes");
}

function exceeded(bounds: RunStoreBounds, name: keyof RunStoreBounds) {
  return quotaExceeded(
    quotaLimitCode(name),
    bounds[name],
    `register would exceed ${name} (${bounds[name]})`,
  );
}
