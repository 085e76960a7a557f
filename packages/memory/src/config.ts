import { validateOptionKeys, validatePositiveInteger } from "@artifact-kit/core";

export interface MemoryArtifactServiceOptions {
  /** Largest single artifact, in bytes (default 64 MiB). */
  maxArtifactBytes?: number;
  /** Live bytes per scope (default 256 MiB). */
  maxScopeBytes?: number;
  /** Live bytes in the whole service (default 512 MiB). */
  maxTotalBytes?: number;
  /** Live versions per scope (default 25,000). */
  maxScopeArtifacts?: number;
  /** Live versions in the whole service (default 100,000). */
  maxTotalArtifacts?: number;
  /** Largest and default page of listNames / listVersions (default 1,000). */
  maxPageLimit?: number;
  /** Most versions the legacy `list` returns before result_limit_exceeded (default 1,000). */
  legacyListLimit?: number;
}

export type MemoryConfig = Required<MemoryArtifactServiceOptions>;

const MiB = 1024 * 1024;

export const MEMORY_DEFAULTS: Readonly<MemoryConfig> = Object.freeze({
  maxArtifactBytes: 64 * MiB,
  maxScopeBytes: 256 * MiB,
  maxTotalBytes: 512 * MiB,
  maxScopeArtifacts: 25_000,
  maxTotalArtifacts: 100_000,
  maxPageLimit: 1_000,
  legacyListLimit: 1_000,
});

export function resolveMemoryConfig(options: unknown): MemoryConfig {
  const given = validateOptionKeys(options, Object.keys(MEMORY_DEFAULTS), "memoryOptions");
  const config = { ...MEMORY_DEFAULTS };
  for (const key of Object.keys(MEMORY_DEFAULTS) as (keyof MemoryConfig)[]) {
    if (given[key] !== undefined) config[key] = validatePositiveInteger(given[key], key);
  }
  return config;
}
