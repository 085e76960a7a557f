import type { ArtifactMeta } from "@artifact-kit/core";
import { nameKey } from "@artifact-kit/core/adapter";
import type { ArtifactServiceConformanceOptions } from "@artifact-kit/core/conformance";
import { ObjectLayout } from "@artifact-kit/object-store";
import { prefixSubjects } from "@artifact-kit/object-store/testing";
import { GetObjectCommand, PutObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import type { S3ArtifactServiceBounds } from "./config.js";
import { S3_DIALECT, S3ArtifactService } from "./service.js";

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
  const Key = new ObjectLayout(`${prefix}/`, S3_DIALECT.bindings).versionObject(
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
 * damages the published object in place; maintain runs repair() from another instance.
 */
export function s3Subjects(
  newClient: () => S3Client,
  bucket: () => string,
): Pick<ArtifactServiceConformanceOptions, "create" | "createBounded"> {
  return prefixSubjects<S3ArtifactServiceBounds>({
    open: (prefix, bounds) =>
      new S3ArtifactService({ client: newClient(), bucket: bucket(), prefix, ...bounds }),
    corrupt: (prefix, meta, offset) => corruptObject(newClient(), bucket(), prefix, meta, offset),
    bounds: {},
    smallBounds: { ...SMALL_S3_BOUNDS },
  });
}
