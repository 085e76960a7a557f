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
  leaseMs: number;
  /** The victim: after this many committed puts, one more put that it never commits. */
  orphanAfter?: number;
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
