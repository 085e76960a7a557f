import { randomUUID } from "node:crypto";
import type { ArtifactService } from "@artifact-kit/core";
import { describeArtifactService } from "@artifact-kit/core/conformance";
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand } from "@aws-sdk/client-s3";
import { beforeAll } from "vitest";
import { S3ArtifactService, type S3ArtifactServiceBounds } from "../src/index.js";
import { freshBucket, newClient } from "./support/server.js";

// One bucket; each subject gets its own prefix, and `reopen` is a new instance (with a new
// client) on the same bucket and prefix, as another host would be.
let bucket: string;
const raw = newClient();
beforeAll(async () => {
  bucket = await freshBucket(raw);
});

const placements = new WeakMap<
  ArtifactService,
  { prefix: string; bounds: S3ArtifactServiceBounds }
>();

function open(prefix: string, bounds: S3ArtifactServiceBounds): S3ArtifactService {
  const service = new S3ArtifactService({ client: newClient(), bucket, prefix, ...bounds });
  placements.set(service, { prefix, bounds });
  return service;
}

const subject = (bounds: S3ArtifactServiceBounds) => async () => ({
  service: open(randomUUID(), bounds),
});

describeArtifactService("s3 (moto)", {
  create: subject({}),
  createBounded: subject({ maxArtifactBytes: 64, maxPageLimit: 3, legacyListLimit: 5 }),
  reopen: async (old) => {
    const placement = placements.get(old);
    if (!placement) throw new Error("reopen of a service this suite did not create");
    return open(placement.prefix, placement.bounds);
  },
  // Flips one data byte of the published object in place (data comes first in the object).
  corruptData: async (service, meta, offset) => {
    const placement = placements.get(service);
    if (!placement) throw new Error("corruption of a service this suite did not create");
    const listed = await raw.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: `${placement.prefix}/` }),
    );
    const key = listed.Contents?.map((object) => object.Key).find((name) => name?.includes("/n/"));
    if (!key || !meta.version) throw new Error("no published object to corrupt");
    const object = await raw.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    const body = await (object.Body?.transformToByteArray() ?? Promise.resolve(new Uint8Array()));
    body[offset] = (body[offset] ?? 0) ^ 0xff;
    await raw.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
  },
  numRuns: 10,
});
