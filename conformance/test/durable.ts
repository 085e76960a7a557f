import { randomUUID } from "node:crypto";
import type { Bucket } from "@google-cloud/storage";
import { inject } from "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    gcsEndpoint: string;
  }
}

// @google-cloud/storage 8 needs Node 22; 7.22 is the peer proven on Node 20.
const onNode22OrLater = Number(process.versions.node.split(".")[0]) >= 22;
const { Storage } = onNode22OrLater
  ? await import("google-cloud-storage-8")
  : await import("@google-cloud/storage");

/** The client major version the gcs subjects use on this Node. */
export const storageClient = onNode22OrLater
  ? "@google-cloud/storage 8"
  : "@google-cloud/storage 7.22";

const client = () => new Storage({ apiEndpoint: inject("gcsEndpoint"), projectId: "matrix" });

/**
 * A new bucket on fake-gcs-server, and how to open it through a new client each time (as
 * another host would). Both client majors are structurally one Bucket; the adapter is typed
 * against 7.22's.
 */
export async function matrixBucket(): Promise<() => Bucket> {
  const name = `matrix-${randomUUID()}`;
  // A create retried after a lost response answers 409: the name is fresh, so it is ours.
  await client()
    .createBucket(name)
    .catch((error: unknown) => {
      if ((error as { code?: unknown } | null)?.code !== 409) throw error;
    });
  return () => client().bucket(name) as unknown as Bucket;
}
