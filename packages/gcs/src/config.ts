import { invalidArgument, validateText } from "@artifact-kit/core";
import {
  looksLike,
  OBJECT_STORE_DEFAULTS,
  type ObjectStoreBounds,
  resolveOptions,
  resolvePrefix,
} from "@artifact-kit/object-store";
import type { Bucket, Storage } from "@google-cloud/storage";
import { DEFAULT_READ_IDLE_MS } from "./idle-read.js";

/** Bounds and defaults; every one is reported by `capabilities()`. */
export interface GcsArtifactServiceBounds extends ObjectStoreBounds {
  /** Largest single artifact, in bytes (default 64 MiB); each put is one in-memory upload. */
  maxArtifactBytes?: number;
  /** Largest and default page of listNames / listVersions (default 1,000, GCS's own page cap). */
  maxPageLimit?: number;
  /**
   * How long a read waits for the server's next bytes before it fails with `unavailable`, in
   * milliseconds (default 60,000): a connection closed in the middle of a reply is otherwise
   * never noticed by the client library.
   */
  readIdleMs?: number;
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
  readIdleMs: DEFAULT_READ_IDLE_MS,
  ...OBJECT_STORE_DEFAULTS,
});

export function resolveGcsConfig(options: unknown): GcsConfig {
  const { given, bounds } = resolveOptions(
    options,
    GCS_DEFAULTS,
    ["prefix", "bucket", "storage", "bucketName"],
    "gcsOptions",
  );
  const config: GcsConfig = {
    bucket: resolveBucket(given),
    prefix: resolvePrefix(given.prefix),
    ...bounds,
  };
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
    if (!looksLike<Bucket>(given.bucket, { file: "function", getFiles: "function" })) {
      throw invalidArgument("bucket", "must be a Bucket of @google-cloud/storage");
    }
    return given.bucket;
  }
  if (!looksLike<Storage>(given.storage, { bucket: "function" })) {
    throw invalidArgument("storage", "must be a Storage of @google-cloud/storage (or give bucket)");
  }
  return given.storage.bucket(validateText(given.bucketName, "bucketName", 222));
}
