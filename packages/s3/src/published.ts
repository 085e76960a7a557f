import { corruptArtifact, type Deadline, type Scope } from "@artifact-kit/core";
import { type ManifestExpectation, nameKey, type StoredManifest } from "@artifact-kit/core/adapter";
import type { BucketClient } from "./bucket-client.js";
import type { ObjectLayout } from "./layout.js";
import { decodeManifest, MANIFEST_READ_BYTES, manifestLength, TAIL_BYTES } from "./manifest.js";

/**
 * The manifest of a published object, from one suffix-range read (two for a large manifest),
 * checked against the scope, the name key and version in its key, and the expected name when
 * known. Undefined when the object does not exist.
 */
export async function readPublishedManifest(
  client: BucketClient,
  layout: ObjectLayout,
  scope: Scope,
  objectKey: string,
  deadline: Deadline,
  name?: string,
): Promise<StoredManifest | undefined> {
  const namesPrefix = layout.namesPrefix(scope);
  const slash = objectKey.lastIndexOf("/");
  const key = objectKey.slice(namesPrefix.length, slash);
  const version = layout.versionOf(objectKey, objectKey.slice(0, slash + 1));
  if (!objectKey.startsWith(namesPrefix) || version === undefined) {
    throw corruptArtifact(`unexpected object ${objectKey}`);
  }
  const end = await client.get(deadline, objectKey, { suffix: MANIFEST_READ_BYTES });
  if (!end) return undefined;
  const { bytes, objectSize } = end;
  const length = manifestLength(bytes, objectSize);
  const dataBytes = objectSize - TAIL_BYTES - length;
  const line =
    length + TAIL_BYTES <= bytes.byteLength
      ? bytes.subarray(bytes.byteLength - TAIL_BYTES - length, bytes.byteLength - TAIL_BYTES)
      : (
          await client.get(deadline, objectKey, {
            start: dataBytes,
            end: objectSize - TAIL_BYTES - 1,
          })
        )?.bytes;
  if (!line) return undefined;
  const expected: ManifestExpectation = { scope, version, ...(name === undefined ? {} : { name }) };
  const manifest = decodeManifest(line, dataBytes, expected);
  if (nameKey(manifest.name).key !== key) {
    throw corruptArtifact(`object ${objectKey} holds the manifest of another name`);
  }
  return manifest;
}
