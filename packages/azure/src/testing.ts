import type { ArtifactMeta } from "@artifact-kit/core";
import type { ArtifactServiceConformanceOptions } from "@artifact-kit/core/conformance";
import { prefixSubjects } from "@artifact-kit/object-store/testing";
import type { ContainerClient } from "@azure/storage-blob";
import type { AzureArtifactServiceBounds } from "./config.js";
import { AzureArtifactService } from "./service.js";

/**
 * Blocks small enough that the kit's multi-block uploads (a few MiB) are staged block by
 * block and copied into place, rather than held in memory and sent as one Put Blob.
 */
const STAGED_UPLOAD_BOUNDS: Readonly<AzureArtifactServiceBounds> = Object.freeze({
  blockBytes: 1024 * 1024,
});

/** Small enough for the kit to drive the item, page and list limits to their edge. */
const SMALL_AZURE_BOUNDS: Readonly<AzureArtifactServiceBounds> = Object.freeze({
  maxArtifactBytes: 64,
  maxPageLimit: 3,
  legacyListLimit: 5,
});

/**
 * Flips one data byte of the blob published for `meta` under `prefix`, keeping its metadata:
 * what a damaged blob in the container looks like to the adapter. The data starts after the
 * manifest line, whose length the blob's metadata records.
 */
async function corruptBlob(
  container: ContainerClient,
  prefix: string,
  meta: ArtifactMeta,
  offset: number,
) {
  for await (const item of container.listBlobsFlat({
    prefix: `${prefix}/`,
    includeMetadata: true,
  })) {
    const segments = item.name.split("/");
    if (segments.at(-3) !== "n" || Number(segments.at(-1)) !== meta.version) continue;
    const blob = container.getBlockBlobClient(item.name);
    const body = await blob.downloadToBuffer();
    const at = Number(item.metadata?.artifact_kit_header_bytes) + offset;
    body[at] = (body[at] ?? 0) ^ 0xff;
    await blob.upload(body, body.byteLength, { metadata: item.metadata ?? {} });
    return;
  }
  throw new Error(`no published blob under ${prefix} to corrupt`);
}

/**
 * The conformance kit's subjects for the azure adapter: each subject is a fresh prefix in the
 * container that `openContainer` opens; reopen and openAnother are a new service through a
 * new `openContainer()` (a new client, as another host would be; openAnother while the first
 * stays open); openNeighbour a service on a prefix nested in this one's own folders (the
 * hardest neighbour to keep apart); maintain runs repair() from another instance; corrupt
 * damages the published blob in place.
 */
export function azureSubjects(
  openContainer: () => ContainerClient,
): Pick<ArtifactServiceConformanceOptions, "create" | "createBounded"> {
  return prefixSubjects<AzureArtifactServiceBounds>({
    open: (prefix, bounds) =>
      new AzureArtifactService({ container: openContainer(), prefix, ...bounds }),
    corrupt: (prefix, meta, offset) => corruptBlob(openContainer(), prefix, meta, offset),
    bounds: { ...STAGED_UPLOAD_BOUNDS },
    smallBounds: { ...SMALL_AZURE_BOUNDS },
  });
}
