import {
  invalidArgument,
  validateOptionKeys,
  validatePositiveInteger,
  validateText,
} from "@artifact-kit/core";
import type { S3Client } from "@aws-sdk/client-s3";

/** Bounds and defaults; every one is reported by `capabilities()`. */
export interface S3ArtifactServiceBounds {
  /** Largest artifact, put or streamed, in bytes (default 4 GiB; a put is one PutObject). */
  maxArtifactBytes?: number;
  /** Largest and default page of listNames / listVersions (default 1,000, S3's own page cap). */
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
  /** Bytes per multipart part of a streamed upload, and the most it buffers (default 8 MiB). */
  partBytes?: number;
}

/**
 * How a streamed upload is published. "create-only" (the default) completes the multipart
 * upload with If-None-Match: *. "unconditional" is the documented weaker mode for servers
 * that refuse or ignore that header on CompleteMultipartUpload: the version's allocation
 * object still keeps other writers away, but the server no longer backs it up.
 */
export type MultipartCompletion = "create-only" | "unconditional";

export interface S3ArtifactServiceOptions extends S3ArtifactServiceBounds {
  /** A client of @aws-sdk/client-s3, configured by the caller (region, endpoint, credentials). */
  client: S3Client;
  bucket: string;
  /** Key prefix shared by every instance of one store, e.g. "artifacts/" (default ""). */
  prefix?: string;
  multipartCompletion?: MultipartCompletion;
}

export interface S3Config extends Required<S3ArtifactServiceBounds> {
  client: S3Client;
  bucket: string;
  /** Empty, or ending in "/". */
  prefix: string;
  multipartCompletion: MultipartCompletion;
}

const MiB = 1024 * 1024;
/** S3's smallest part (other than the last) and its largest part and single PutObject. */
const MIN_PART_BYTES = 5 * MiB;
export const MAX_PART_BYTES = 5 * 1024 * MiB;
/** S3 lists at most this many keys per request. */
export const S3_MAX_KEYS = 1_000;

export const S3_DEFAULTS: Readonly<Required<S3ArtifactServiceBounds>> = Object.freeze({
  maxArtifactBytes: 4 * 1024 * MiB,
  maxPageLimit: S3_MAX_KEYS,
  legacyListLimit: 1_000,
  maxConcurrency: 16,
  maxContentionWaitMs: 60_000,
  partBytes: 8 * MiB,
});

/** Longest prefix: with it, the longest key still fits S3's 1,024 bytes. */
export const MAX_PREFIX_BYTES = 256;

const BOUND_KEYS = Object.keys(S3_DEFAULTS) as (keyof S3ArtifactServiceBounds)[];

export function resolveS3Config(options: unknown): S3Config {
  const given = validateOptionKeys(
    options,
    [...BOUND_KEYS, "client", "bucket", "prefix", "multipartCompletion"],
    "s3Options",
  );
  if (!isS3Client(given.client)) {
    throw invalidArgument("client", "must be an S3Client of @aws-sdk/client-s3");
  }
  const config: S3Config = {
    ...S3_DEFAULTS,
    client: given.client,
    bucket: validateText(given.bucket, "bucket", 255),
    prefix: resolvePrefix(given.prefix),
    multipartCompletion: resolveCompletion(given.multipartCompletion),
  };
  for (const key of BOUND_KEYS) {
    if (given[key] !== undefined) config[key] = validatePositiveInteger(given[key], key);
  }
  if (config.maxPageLimit > S3_MAX_KEYS) {
    throw invalidArgument("maxPageLimit", "must be at most 1000, the largest S3 listing page");
  }
  if (config.partBytes < MIN_PART_BYTES || config.partBytes > MAX_PART_BYTES) {
    throw invalidArgument("partBytes", "must be from 5 MiB to 5 GiB, S3's part sizes");
  }
  if (config.maxArtifactBytes > MAX_PART_BYTES - MiB) {
    throw invalidArgument("maxArtifactBytes", "must leave room in S3's 5 GiB single PutObject");
  }
  return config;
}

/** Duck-typed, since the peer dependency may be installed more than once. */
function isS3Client(value: unknown): value is S3Client {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { send?: unknown }).send === "function" &&
    typeof (value as { config?: unknown }).config === "object"
  );
}

function resolvePrefix(value: unknown): string {
  if (value === undefined || value === "") return "";
  const prefix = validateText(value, "prefix", MAX_PREFIX_BYTES - 1);
  if (/[\r\n]/.test(prefix)) throw invalidArgument("prefix", "contains CR or LF");
  return prefix.endsWith("/") ? prefix : `${prefix}/`;
}

function resolveCompletion(value: unknown): MultipartCompletion {
  if (value === undefined || value === "create-only") return "create-only";
  if (value === "unconditional") return value;
  throw invalidArgument("multipartCompletion", 'must be "create-only" or "unconditional"');
}
