import { randomUUID } from "node:crypto";
import type { ArtifactMeta } from "@artifact-kit/core";
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

function open(prefix: string, bounds: S3ArtifactServiceBounds): S3ArtifactService {
  return new S3ArtifactService({ client: newClient(), bucket, prefix, ...bounds });
}

/** Flips one data byte of the published object under `prefix` (data comes first in it). */
async function corruptUnder(prefix: string, meta: ArtifactMeta, offset: number) {
  const listed = await raw.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: `${prefix}/` }));
  const key = listed.Contents?.map((object) => object.Key).find((name) => name?.includes("/n/"));
  if (!key || !meta.version) throw new Error("no published object to corrupt");
  const object = await raw.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  const body = await (object.Body?.transformToByteArray() ?? Promise.resolve(new Uint8Array()));
  body[offset] = (body[offset] ?? 0) ^ 0xff;
  await raw.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
}

const subject = (bounds: S3ArtifactServiceBounds) => async () => {
  const prefix = randomUUID();
  return {
    service: open(prefix, bounds),
    reopen: async () => open(prefix, bounds),
    corrupt: (meta: ArtifactMeta, offset: number) => corruptUnder(prefix, meta, offset),
  };
};

describeArtifactService("s3 (moto)", {
  create: subject({}),
  createBounded: subject({ maxArtifactBytes: 64, maxPageLimit: 3, legacyListLimit: 5 }),
  numRuns: 10,
});
