import type { ArtifactMeta } from "@artifact-kit/core";
import type { ArtifactServiceConformanceOptions } from "@artifact-kit/core/conformance";
import { prefixSubjects } from "@artifact-kit/object-store/testing";
import type { Bucket } from "@google-cloud/storage";
import type { GcsArtifactServiceBounds } from "./config.js";
import { GcsArtifactService } from "./service.js";

/** Small enough for the kit to drive the item, page and list limits to their edge. */
const SMALL_GCS_BOUNDS: Readonly<GcsArtifactServiceBounds> = Object.freeze({
  maxArtifactBytes: 64,
  maxPageLimit: 3,
  legacyListLimit: 5,
});

/**
 * Flips one data byte of the object published for `meta` under `prefix`, keeping its custom
 * metadata: what a damaged object in the bucket looks like to the adapter.
 */
async function corruptObject(bucket: Bucket, prefix: string, meta: ArtifactMeta, offset: number) {
  const [files] = await bucket.getFiles({ prefix: `${prefix}/` });
  const published = files.filter((file) => file.name.includes("/n/"));
  const file = published.find(
    (candidate) => Number(candidate.name.split("/").at(-1)) === meta.version,
  );
  if (!file) throw new Error(`no published object under ${prefix} to corrupt`);
  const custom = file.metadata.metadata ?? {};
  const [body] = await file.download();
  const at = Number(custom["artifact-kit-header-bytes"]) + offset;
  body[at] = (body[at] ?? 0) ^ 0xff;
  await file.save(body, { resumable: false, metadata: { metadata: custom } });
}

/**
 * The conformance kit's subjects for the gcs adapter: each subject is a fresh prefix in the
 * bucket that `openBucket` opens; reopen and openAnother are a new service through a new
 * `openBucket()` (a new client, as another host would be; openAnother while the first stays
 * open); openNeighbour a service on a prefix nested in this one's own folders (the hardest
 * neighbour to keep apart); maintain runs repair() from another instance; corrupt damages
 * the published object in place.
 */
export function gcsSubjects(
  openBucket: () => Bucket,
): Pick<ArtifactServiceConformanceOptions, "create" | "createBounded"> {
  return prefixSubjects<GcsArtifactServiceBounds>({
    open: (prefix, bounds) => new GcsArtifactService({ bucket: openBucket(), prefix, ...bounds }),
    corrupt: (prefix, meta, offset) => corruptObject(openBucket(), prefix, meta, offset),
    bounds: {},
    smallBounds: { ...SMALL_GCS_BOUNDS },
  });
}
