import type { ArtifactService } from "@artifact-kit/core";

/** The adapter options a suite may change from their defaults. */
export interface ServiceBounds {
  /** A streamed upload larger than the default (64 MiB on gcs) needs this raised. */
  readonly maxArtifactBytes?: number;
}

/**
 * One bucket (an Azure container) of an object store, through its own SDK: what the
 * object-store suites need of a backend, so that each backend is this much and no more.
 */
export interface BenchBucket {
  /** Untimed: creates the bucket if it is missing and removes everything in it. */
  empty(): Promise<void>;
  /** The artifact-kit adapter over this bucket, with its default bounds unless given. */
  service(bounds?: ServiceBounds): ArtifactService;
  /** One raw write of a whole object. */
  put(key: string, bytes: Uint8Array): Promise<unknown>;
  /** One raw read of a whole object. */
  get(key: string): Promise<unknown>;
  /** One listing request of the objects under `prefix` (at most `max` of them, when given). */
  list(prefix: string, max?: number): Promise<unknown>;
  /** Untimed: every object name in the bucket. */
  names(): Promise<string[]>;
  /** Untimed: releases the SDK's client, where it holds one. */
  close?(): Promise<void>;
}
