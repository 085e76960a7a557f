import {
  quotaExceeded,
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
  /**
   * Bytes of the content already at the path, or undefined for a new path. Like the other
   * byte counts, a store may pass an upper bound of bytes it has not counted yet.
   */
  readonly replacedSize: number | undefined;
  readonly runArtifacts: number;
  readonly runBytes: number;
  readonly runs: number;
  readonly totalBytes: number;
}

/** The bounds that count bytes (the others count files and runs). */
export const BYTE_BOUNDS: ReadonlySet<keyof RunStoreBounds> = new Set([
  "maxBytesPerArtifact",
  "maxBytesPerRun",
  "maxTotalBytes",
]);

/** The first bound a registration of `size` bytes would break, or undefined if it fits. */
export function firstExceeded(
  bounds: RunStoreBounds,
  usage: Usage,
  size: number,
): keyof RunStoreBounds | undefined {
  // Straight-line comparisons: this runs on every register, the store's hot path.
  const growth = size - (usage.replacedSize ?? 0);
  if (size > bounds.maxBytesPerArtifact) return "maxBytesPerArtifact";
  // An upsert replaces a present path, so only a new path counts.
  if (usage.replacedSize === undefined && usage.runArtifacts + 1 > bounds.maxArtifactsPerRun) {
    return "maxArtifactsPerRun";
  }
  if (usage.runBytes + growth > bounds.maxBytesPerRun) return "maxBytesPerRun";
  // A run exists while it holds a file: its first file creates it.
  if (usage.runArtifacts === 0 && usage.runs + 1 > bounds.maxRuns) return "maxRuns";
  if (usage.totalBytes + growth > bounds.maxTotalBytes) return "maxTotalBytes";
  return undefined;
}

/** Throws quota_exceeded (with detail.limit) for the first bound a registration would break. */
export function checkBounds(bounds: RunStoreBounds, usage: Usage, size: number): void {
  const exceeded = firstExceeded(bounds, usage, size);
  if (exceeded !== undefined) throw exceededError(bounds, exceeded);
}

export function exceededError(bounds: RunStoreBounds, name: keyof RunStoreBounds) {
  return quotaExceeded(name, bounds[name], `register would exceed ${name} (${bounds[name]})`);
}
