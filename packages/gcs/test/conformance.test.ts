import { randomUUID } from "node:crypto";
import type { ArtifactService } from "@artifact-kit/core";
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

const placements = new WeakMap<
  ArtifactService,
  { prefix: string; bounds: GcsArtifactServiceBounds }
>();

function open(prefix: string, bounds: GcsArtifactServiceBounds): GcsArtifactService {
  const service = new GcsArtifactService({
    bucket: newStorage().bucket(bucket.name),
    prefix,
    ...bounds,
  });
  placements.set(service, { prefix, bounds });
  return service;
}

const subject = (bounds: GcsArtifactServiceBounds) => async () => ({
  service: open(randomUUID(), bounds),
});

describeArtifactService("gcs (fake-gcs-server)", {
  create: subject({}),
  createBounded: subject({ maxArtifactBytes: 64, maxPageLimit: 3, legacyListLimit: 5 }),
  reopen: async (old) => {
    const placement = placements.get(old);
    if (!placement) throw new Error("reopen of a service this suite did not create");
    return open(placement.prefix, placement.bounds);
  },
  // Flips one data byte of the published object in place, keeping its custom metadata.
  corruptData: async (service, meta, offset) => {
    const placement = placements.get(service);
    if (!placement) throw new Error("corruption of a service this suite did not create");
    const [files] = await bucket.getFiles({ prefix: `${placement.prefix}/` });
    const file = files.find((candidate) => candidate.name.includes("/n/"));
    if (!file || !meta.version) throw new Error("no published object to corrupt");
    const custom = file.metadata.metadata ?? {};
    const [body] = await file.download();
    const at = Number(custom["artifact-kit-header-bytes"]) + offset;
    body[at] = (body[at] ?? 0) ^ 0xff;
    await file.save(body, { resumable: false, metadata: { metadata: custom } });
  },
  numRuns: 50,
});
