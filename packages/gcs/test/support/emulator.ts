import { randomUUID } from "node:crypto";
import { type Bucket, Storage } from "@google-cloud/storage";
import { inject } from "vitest";

export const endpoint = (): string => inject("gcsEndpoint");

/**
 * A client of the emulator (or of a proxy in front of it). Retries wait 1 s each (the
 * smallest back-off the client's upload retry accepts), so tests of retried faults stay short.
 */
export function newStorage(apiEndpoint = endpoint()): Storage {
  return new Storage({
    apiEndpoint,
    projectId: "artifact-kit-test",
    retryOptions: { maxRetries: 3, maxRetryDelay: 1, retryDelayMultiplier: 1, totalTimeout: 20 },
  });
}

/** A new, empty bucket on the emulator (created through the JSON API). */
export async function freshBucket(storage = newStorage()): Promise<Bucket> {
  const [bucket] = await storage.createBucket(`ak-${randomUUID()}`);
  return bucket;
}
