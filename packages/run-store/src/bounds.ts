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
  const isNewPath = usage.replacedSize === undefined;
  const growth = size - (usage.replacedSize ?? 0);
  const wouldBe: Record<keyof RunStoreBounds, number> = {
    maxBytesPerArtifact: size,
    // An upsert replaces a present path, so only a new path counts.
    maxArtifactsPerRun: usage.runArtifacts + (isNewPath ? 1 : 0),
    maxBytesPerRun: usage.runBytes + growth,
    // A run exists while it holds a file: its first file creates it.
    maxRuns: usage.runs + (usage.runArtifacts === 0 ? 1 : 0),
    maxTotalBytes: usage.totalBytes + growth,
  };
  for (const name of RUN_STORE_BOUND_NAMES) {
    if (wouldBe[name] > bounds[name]) {
      throw quotaExceeded(
        quotaLimitCode(name),
        bounds[name],
        `register would exceed ${name} (${bounds[name]})`,
      );
    }
  }
}
