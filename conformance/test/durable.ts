import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ArtifactMeta } from "@artifact-kit/core";
import {
  type ArtifactServiceConformanceOptions,
  flipFileByte,
} from "@artifact-kit/core/conformance";
import { FsArtifactService, fsArtifactPaths } from "@artifact-kit/fs";
import { GcsArtifactService, type GcsArtifactServiceBounds as GcsBounds } from "@artifact-kit/gcs";
import type { Bucket } from "@google-cloud/storage";
import { inject } from "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    gcsEndpoint: string;
  }
}

type Subjects = Pick<ArtifactServiceConformanceOptions, "create" | "createBounded">;

type FsBounds = Omit<Parameters<typeof FsArtifactService.open>[0], "root">;

/** A fresh root per subject; reopen is a new service on the same root. */
const fsSubject = (Service: typeof FsArtifactService, bounds: FsBounds) => async () => {
  const root = await mkdtemp(join(tmpdir(), "matrix-fs-"));
  return {
    service: await Service.open({ root, ...bounds }),
    reopen: () => Service.open({ root, ...bounds }),
    corrupt: (meta: ArtifactMeta, offset: number) =>
      flipFileByte(fsArtifactPaths(root, meta.scope, meta.name, meta.version).data, offset),
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
};

/** fs (or a patched copy of it): the bounded one has tiny ceilings. */
export const fsSubjects = (Service: typeof FsArtifactService = FsArtifactService): Subjects => ({
  create: fsSubject(Service, {}),
  createBounded: fsSubject(Service, {
    maxScanEntries: 12,
    maxArtifactBytes: 4096,
    maxPageLimit: 3,
    legacyListLimit: 4,
  }),
});

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
  const open = (bucketName: string, bounds: GcsBounds) => {
    const storage = new Storage({ apiEndpoint: inject("gcsEndpoint"), projectId: "matrix" });
    // Both client majors are structurally one Bucket; the adapter is typed against 7.22's.
    const bucket = storage.bucket(bucketName) as unknown as Bucket;
    return new GcsArtifactService({ bucket, ...bounds });
  };
  const subject = (bounds: GcsBounds) => async () => {
    const storage = new Storage({ apiEndpoint: inject("gcsEndpoint"), projectId: "matrix" });
    const name = `matrix-${randomUUID()}`;
    // A create retried after a lost response answers 409: the name is fresh, so it is ours.
    await storage.createBucket(name).catch((error: unknown) => {
      if ((error as { code?: unknown } | null)?.code !== 409) throw error;
    });
    return { service: open(name, bounds), reopen: async () => open(name, bounds) };
  };
  return {
    create: subject({}),
    createBounded: subject({ maxArtifactBytes: 64, maxPageLimit: 3, legacyListLimit: 5 }),
  };
}
