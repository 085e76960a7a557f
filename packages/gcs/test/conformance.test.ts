import { randomUUID } from "node:crypto";
import type { ArtifactMeta } from "@artifact-kit/core";
import { describeArtifactService } from "@artifact-kit/core/conformance";
import type { Bucket } from "@google-cloud/storage";
import { beforeAll } from "vitest";
import { GcsArtifactService, type GcsArtifactServiceBounds } from "../src/index.js";
import { freshBucket, newStorage } from "./support/emulator.js";

// One bucket; each subject gets its own prefix, and `reopen` is a new instance (with a new
// client) on the same bucket and prefix, as another host would be.
let bucket: Bucket;
beforeAll(async () => {
  bucket = await freshBucket();
});

function open(prefix: string, bounds: GcsArtifactServiceBounds): GcsArtifactService {
  return new GcsArtifactService({
    bucket: newStorage().bucket(bucket.name),
    prefix,
    ...bounds,
  });
}

/** Flips one data byte of the published object under `prefix`, keeping its custom metadata. */
async function corruptUnder(prefix: string, meta: ArtifactMeta, offset: number) {
  const [files] = await bucket.getFiles({ prefix: `${prefix}/` });
  const file = files.find((candidate) => candidate.name.includes("/n/"));
  if (!file || !meta.version) throw new Error("no published object to corrupt");
  const custom = file.metadata.metadata ?? {};
  const [body] = await file.download();
  const at = Number(custom["artifact-kit-header-bytes"]) + offset;
  body[at] = (body[at] ?? 0) ^ 0xff;
  await file.save(body, { resumable: false, metadata: { metadata: custom } });
}

const subject = (bounds: GcsArtifactServiceBounds) => async () => {
  const prefix = randomUUID();
  return {
    service: open(prefix, bounds),
    reopen: async () => open(prefix, bounds),
    corrupt: (meta: ArtifactMeta, offset: number) => corruptUnder(prefix, meta, offset),
  };
};

describeArtifactService("gcs (fake-gcs-server)", {
  create: subject({}),
  createBounded: subject({ maxArtifactBytes: 64, maxPageLimit: 3, legacyListLimit: 5 }),
  numRuns: 50,
});
