// What the coordinator (multi-host.ts) and its hosts (multi-host-worker.ts) share.

import type { Scope } from "@artifact-kit/core";
import { S3Client } from "@aws-sdk/client-s3";

export interface HostConfig {
  host: string;
  databaseUrl: string;
  schema: string;
  s3Endpoint: string;
  bucket: string;
  prefix: string;
  scope: Scope;
  names: string[];
  /** Committed puts this host makes. */
  puts: number;
  /** Puts in flight at once. */
  lanes: number;
  /** The lease of each committed put: long, so no reconciler judges a put while its host lives. */
  leaseMs: number;
  /** The victim: after this many committed puts, one more put that it never commits. */
  orphanAfter?: number;
  /**
   * The lease of that last put: the reconciler waits it out once the victim is dead, so it is
   * shorter than leaseMs, yet long enough for one put on a busy server (the journaled put's
   * call gets 80% of its lease).
   */
  orphanLeaseMs?: number;
}

/** A client of the S3 endpoint (path-style, as local servers need). */
export function s3Client(endpoint: string): S3Client {
  return new S3Client({
    endpoint,
    region: process.env.AWS_REGION ?? "us-east-1",
    forcePathStyle: true,
    credentials: {
      accessKeyId: process.env.AWS_ACCESS_KEY_ID ?? "test",
      secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY ?? "test",
    },
  });
}
