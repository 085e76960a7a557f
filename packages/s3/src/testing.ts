import { randomUUID } from "node:crypto";
import type { ArtifactMeta } from "@artifact-kit/core";
import { nameKey } from "@artifact-kit/core/adapter";
import type {
  ArtifactServiceConformanceOptions,
  ServiceSubject,
} from "@artifact-kit/core/conformance";
import { GetObjectCommand, PutObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import type { S3ArtifactServiceBounds } from "./config.js";
import { ObjectLayout } from "./layout.js";
import { S3ArtifactService } from "./service.js";

/** Small enough for the kit to drive the item, page and list limits to their edge. */
const SMALL_S3_BOUNDS: Readonly<S3ArtifactServiceBounds> = Object.freeze({
  maxArtifactBytes: 64,
  maxPageLimit: 3,
  legacyListLimit: 5,
});

/** Flips one data byte of the object published for `meta` (the data comes first in it). */
async function corruptObject(
  client: S3Client,
  bucket: string,
  prefix: string,
  meta: ArtifactMeta,
  offset: number,
) {
  const Key = new ObjectLayout(`${prefix}/`).versionObject(
    meta.scope,
    nameKey(meta.name).key,
    meta.version,
  );
  const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key }));
  const body = await (object.Body?.transformToByteArray() ?? Promise.resolve(new Uint8Array()));
  body[offset] = (body[offset] ?? 0) ^ 0xff;
  await client.send(new PutObjectCommand({ Bucket: bucket, Key, Body: body }));
}

/**
 * The conformance kit's subjects for the s3 adapter: each subject is a fresh prefix in the
 * bucket `bucket()` names; reopen and openAnother are a new service with a new client (as
 * another host would be; openAnother while the first stays open); openNeighbour a service on
 * a prefix nested in this one's own folders (the hardest neighbour to keep apart); corrupt
 * damages the published object in place.
 */
export function s3Subjects(
  newClient: () => S3Client,
  bucket: () => string,
): Pick<ArtifactServiceConformanceOptions, "create" | "createBounded"> {
  const subject = (bounds: S3ArtifactServiceBounds) => async (): Promise<ServiceSubject> => {
    const prefix = randomUUID();
    const open = () =>
      new S3ArtifactService({ client: newClient(), bucket: bucket(), prefix, ...bounds });
    return {
      service: open(),
      reopen: async () => open(),
      openAnother: async () => open(),
      openNeighbour: async () =>
        new S3ArtifactService({ client: newClient(), bucket: bucket(), prefix: `${prefix}/c` }),
      corrupt: (meta, offset) => corruptObject(newClient(), bucket(), prefix, meta, offset),
    };
  };
  return { create: subject({}), createBounded: subject({ ...SMALL_S3_BOUNDS }) };
}
