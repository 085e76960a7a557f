import {
  invalidArgument,
  validateOptionKeys,
  validatePositiveInteger,
  validateText,
} from "@artifact-kit/core";
import type { Bucket, Storage } from "@google-cloud/storage";

/** Bounds and defaults; every one is reported by `capabilities()`. */
export interface GcsArtifactServiceBounds {
  /** Largest single artifact, in bytes (default 64 MiB); each put is one in-memory upload. */
  maxArtifactBytes?: number;
  /** Largest and default page of listNames / listVersions (default 1,000, GCS's own page cap). */
  maxPageLimit?: number;
  /** Most versions the legacy `list` returns before result_limit_exceeded (default 1,000). */
  legacyListLimit?: number;
  /** Requests in flight at once per service instance (default 16). */
  maxConcurrency?: number;
  /**
   * How long a put without a `timeoutMs` of its own keeps trying for a free version while
   * other writers take them, in milliseconds (default 60,000); then `overloaded`. A put with
   * a `timeoutMs` keeps trying until that deadline instead (then `timeout`).
   */
  maxContentionWaitMs?: number;
}

interface Placement extends GcsArtifactServiceBounds {
  /** Object-name prefix shared by every instance of one store, e.g. "artifacts/" (default ""). */
  prefix?: string;
}

/** Where the artifacts live: a Bucket, or a Storage client and a bucket name. */
export type GcsArtifactServiceOptions =
  | (Placement & { bucket: Bucket })
  | (Placement & { storage: Storage; bucketName: string });

export interface GcsConfig extends Required<GcsArtifactServiceBounds> {
  bucket: Bucket;
  /** Empty, or ending in "/". */
  prefix: string;
}

const MiB = 1024 * 1024;

export const GCS_DEFAULTS: Readonly<Required<GcsArtifactServiceBounds>> = Object.freeze({
  maxArtifactBytes: 64 * MiB,
  maxPageLimit: 1_000,
  legacyListLimit: 1_000,
  maxConcurrency: 16,
  maxContentionWaitMs: 60_000,
});

/** Longest prefix: with it, the longest object name still fits GCS's 1,024 bytes. */
export const MAX_PREFIX_BYTES = 256;

const BOUND_KEYS = Object.keys(GCS_DEFAULTS) as (keyof GcsArtifactServiceBounds)[];

export function resolveGcsConfig(options: unknown): GcsConfig {
  const given = validateOptionKeys(
    options,
    [...BOUND_KEYS, "prefix", "bucket", "storage", "bucketName"],
    "gcsOptions",
  );
  const config: GcsConfig = {
    ...GCS_DEFAULTS,
    bucket: resolveBucket(given),
    prefix: resolvePrefix(given.prefix),
  };
  for (const key of BOUND_KEYS) {
    if (given[key] !== undefined) config[key] = validatePositiveInteger(given[key], key);
  }
  if (config.maxPageLimit > GCS_DEFAULTS.maxPageLimit) {
    throw invalidArgument("maxPageLimit", "must be at most 1000, the largest GCS listing page");
  }
  return config;
}

function resolveBucket(given: Record<string, unknown>): Bucket {
  if (given.bucket !== undefined) {
    if (given.storage !== undefined || given.bucketName !== undefined) {
      throw invalidArgument("bucket", "give either bucket, or storage and bucketName");
    }
    if (!looksLike<Bucket>(given.bucket, ["file", "getFiles"])) {
      throw invalidArgument("bucket", "must be a Bucket of @google-cloud/storage");
    }
    return given.bucket;
  }
  if (!looksLike<Storage>(given.storage, ["bucket"])) {
    throw invalidArgument("storage", "must be a Storage of @google-cloud/storage (or give bucket)");
  }
  return given.storage.bucket(validateText(given.bucketName, "bucketName", 222));
}

/** Duck-typed, since the peer dependency may be installed more than once. */
function looksLike<T>(value: unknown, methods: readonly string[]): value is T {
  return (
    typeof value === "object" &&
    value !== null &&
    methods.every((method) => typeof (value as Record<string, unknown>)[method] === "function")
  );
}

function resolvePrefix(value: unknown): string {
  if (value === undefined || value === "") return "";
  const prefix = validateText(value, "prefix", MAX_PREFIX_BYTES - 1);
  if (/[\r\n]/.test(prefix)) throw invalidArgument("prefix", "contains CR or LF");
  return prefix.endsWith("/") ? prefix : `${prefix}/`;
}
