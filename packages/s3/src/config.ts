import { invalidArgument, validateText } from "@artifact-kit/core";
import {
  looksLike,
  OBJECT_STORE_DEFAULTS,
  type ObjectStoreBounds,
  resolveOptions,
  resolvePrefix,
} from "@artifact-kit/object-store";
import type { S3Client } from "@aws-sdk/client-s3";

/** Bounds and defaults; every one is reported by `capabilities()`. */
export interface S3ArtifactServiceBounds extends ObjectStoreBounds {
  /** Largest artifact, put or streamed, in bytes (default 4 GiB; a put is one PutObject). */
  maxArtifactBytes?: number;
  /** Largest and default page of listNames / listVersions (default 1,000, S3's own page cap). */
  maxPageLimit?: number;
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
  ...OBJECT_STORE_DEFAULTS,
  partBytes: 8 * MiB,
});

export function resolveS3Config(options: unknown): S3Config {
  const { given, bounds } = resolveOptions(
    options,
    S3_DEFAULTS,
    ["client", "bucket", "prefix", "multipartCompletion"],
    "s3Options",
  );
  if (!looksLike<S3Client>(given.client, { send: "function", config: "object" })) {
    throw invalidArgument("client", "must be an S3Client of @aws-sdk/client-s3");
  }
  const config: S3Config = {
    client: given.client,
    bucket: validateText(given.bucket, "bucket", 255),
    prefix: resolvePrefix(given.prefix),
    multipartCompletion: resolveCompletion(given.multipartCompletion),
    ...bounds,
  };
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

function resolveCompletion(value: unknown): MultipartCompletion {
  if (value === undefined || value === "create-only") return "create-only";
  if (value === "unconditional") return value;
  throw invalidArgument("multipartCompletion", 'must be "create-only" or "unconditional"');
}
