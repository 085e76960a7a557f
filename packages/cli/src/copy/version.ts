import { createHash } from "node:crypto";
import { pipeline } from "node:stream/promises";
import {
  type ArtifactMeta,
  type ArtifactService,
  checkArtifactSize,
  corruptArtifact,
  TRANSFER_BLOCK_BYTES,
} from "@artifact-kit/core";
import { openDownload, openUpload } from "@artifact-kit/stream";

// One source version onto the target, as the next version of the same scope and name.
// Versions of at least one transfer block stream from source to target when the source
// streams downloads and the target streams uploads (memory: one chunk); otherwise, and for
// smaller ones, the version moves as one buffer, bounded by the stores' maxArtifactBytes.

/** Below this the version moves as one buffer: one get and one put cost fewer requests. */
export const STREAM_THRESHOLD_BYTES = TRANSFER_BLOCK_BYTES;

export async function copyVersion(
  source: ArtifactService,
  target: ArtifactService,
  meta: ArtifactMeta,
  idempotencyKey: string,
): Promise<ArtifactMeta> {
  const bound = target.capabilities().quotas.bounds.maxArtifactBytes;
  // Before a byte moves: the target would refuse it only once the bound is reached.
  if (bound !== undefined) checkArtifactSize(meta.size, bound);
  const { scope, name, version } = meta;
  const putOptions = { mimeType: meta.mimeType, metadata: meta.metadata, idempotencyKey };
  let written: ArtifactMeta;
  if (meta.size >= STREAM_THRESHOLD_BYTES && streams(source, target)) {
    const download = openDownload(source, scope, name, { version });
    const upload = openUpload(target, scope, name, { ...putOptions, maxBytes: meta.size });
    await pipeline(download.toNodeReadable(), upload.toNodeWritable());
    written = await upload.meta;
  } else {
    const { data } = await source.get(scope, name, { version });
    written = await target.put(scope, name, data, putOptions);
  }
  expectSameBytes(meta, written, "recorded");
  return written;
}

function streams(source: ArtifactService, target: ArtifactService): boolean {
  return (
    source.capabilities().transfer?.streamingDownload === true &&
    target.capabilities().transfer?.streamingUpload === true
  );
}

/**
 * Reads the target's copy back and hashes it (streamed where the target can, else one
 * buffer): the bytes stored, not only the digest the target recorded, match the source's.
 */
export async function rereadCopy(
  target: ArtifactService,
  source: ArtifactMeta,
  copy: ArtifactMeta,
): Promise<void> {
  const download = openDownload(target, copy.scope, copy.name, {
    version: copy.version,
    buffering: { maxBytes: Math.max(copy.size, 1) },
  });
  const hash = createHash("sha256");
  let size = 0;
  for await (const chunk of download.toNodeReadable()) {
    hash.update(chunk as Uint8Array);
    size += (chunk as Uint8Array).byteLength;
  }
  expectSameBytes(source, { size, sha256: hash.digest("hex") }, "read back");
}

/** The target's copy has the source's size and SHA-256, or the copy is corrupt_artifact. */
export function expectSameBytes(
  source: ArtifactMeta,
  copy: Pick<ArtifactMeta, "size" | "sha256"> & { version?: number },
  how: string,
): void {
  if (copy.size === source.size && copy.sha256 === source.sha256) return;
  throw corruptArtifact(
    `the copy of "${source.name}" v${source.version} on the target ${how} ${copy.size} B sha256 ${copy.sha256}, the source has ${source.size} B sha256 ${source.sha256}`,
    {
      name: source.name,
      version: source.version,
      ...(copy.version === undefined ? {} : { targetVersion: copy.version }),
    },
  );
}
