import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ArtifactService } from "@artifact-kit/core";
import type { ArtifactServiceConformanceOptions } from "@artifact-kit/core/conformance";
import { FsArtifactService } from "@artifact-kit/fs";
import { GcsArtifactService } from "@artifact-kit/gcs";
import type { Bucket } from "@google-cloud/storage";
import { inject } from "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    gcsEndpoint: string;
  }
}

type Subjects = Pick<ArtifactServiceConformanceOptions, "create" | "reopen">;

/** fs: a fresh root per subject; reopen is a new service on the same root. */
export const fsSubjects: Subjects = {
  create: async () => {
    const root = await mkdtemp(join(tmpdir(), "matrix-fs-"));
    return {
      service: await FsArtifactService.open({ root }),
      cleanup: () => rm(root, { recursive: true, force: true }),
    };
  },
  reopen: async (old) => FsArtifactService.open({ root: (old as FsArtifactService).root }),
};

// @google-cloud/storage 8 needs Node 22; 7.22 is the peer proven on Node 20.
const onNode22OrLater = Number(process.versions.node.split(".")[0]) >= 22;
const { Storage } = onNode22OrLater
  ? await import("google-cloud-storage-8")
  : await import("@google-cloud/storage");

/** The client major version the gcs subjects use on this Node. */
export const storageClient = onNode22OrLater
  ? "@google-cloud/storage 8"
  : "@google-cloud/storage 7.22";

/**
 * gcs on fake-gcs-server: one bucket per subject; reopen is a new client and service on the
 * same bucket, as another host would be.
 */
export function gcsSubjects(): Subjects {
  const openOn = (bucketName: string): ArtifactService => {
    const storage = new Storage({ apiEndpoint: inject("gcsEndpoint"), projectId: "matrix" });
    // Both client majors are structurally one Bucket; the adapter is typed against 7.22's.
    return new GcsArtifactService({ bucket: storage.bucket(bucketName) as unknown as Bucket });
  };
  const buckets = new WeakMap<ArtifactService, string>();
  const open = (bucketName: string) => {
    const service = openOn(bucketName);
    buckets.set(service, bucketName);
    return service;
  };
  return {
    create: async () => {
      const storage = new Storage({ apiEndpoint: inject("gcsEndpoint"), projectId: "matrix" });
      const [bucket] = await storage.createBucket(`matrix-${randomUUID()}`);
      return { service: open(bucket.name) };
    },
    reopen: async (old) => {
      const bucketName = buckets.get(old);
      if (!bucketName) throw new Error("reopen of a service the matrix did not create");
      return open(bucketName);
    },
  };
}
