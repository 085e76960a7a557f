import { corruptArtifact, type Deadline, notFound, type Scope } from "@artifact-kit/core";
import { nameKey } from "@artifact-kit/core/adapter";
import type { BucketClient, StoredObject } from "./bucket-client.js";
import { KEYED_FLAG } from "./keys.js";
import type { ObjectLayout } from "./layout.js";
import {
  type Manifest,
  type ManifestExpectation,
  manifestJson,
  manifestLineText,
  parseManifest,
} from "./manifest.js";

import { REQUEST_ID_KEY } from "./request-id.js";

const HEADER_BYTES_KEY = "artifact-kit-header-bytes";
const MANIFEST_KEY = "artifact-kit-manifest";
/** GCS allows 8 KiB of custom metadata; larger manifests are read from the object's header. */
const MAX_INLINE_MANIFEST_BYTES = 6 * 1024;

/**
 * Custom metadata of a published object: its request id, header length, and the manifest
 * (without block digests) if small.
 */
export function publishedMetadata(manifest: Manifest, headerBytes: number): Record<string, string> {
  const json = manifestJson(manifest, true);
  return {
    [REQUEST_ID_KEY]: manifest.requestId,
    [HEADER_BYTES_KEY]: String(headerBytes),
    ...(manifest.idempotencyKey === undefined ? {} : { [KEYED_FLAG]: "1" }),
    ...(Buffer.byteLength(json) <= MAX_INLINE_MANIFEST_BYTES ? { [MANIFEST_KEY]: json } : {}),
  };
}

/** Length of the manifest line (and newline) that precedes the data in a published object. */
export function headerBytesOf(object: StoredObject): number {
  const headerBytes = Number(object.customMetadata[HEADER_BYTES_KEY]);
  if (!Number.isSafeInteger(headerBytes) || headerBytes < 2) {
    throw corruptArtifact(`object ${object.name} does not record its header length`);
  }
  return headerBytes;
}

/**
 * The manifest of a published object found by a listing or a metadata read: from its custom
 * metadata when it fit there, else from a ranged read of its header; checked against the
 * scope, the key and version in its object name, and the expected name when known.
 */
export async function readPublishedManifest(
  client: BucketClient,
  layout: ObjectLayout,
  scope: Scope,
  object: StoredObject,
  deadline: Deadline,
  name?: string,
): Promise<Manifest> {
  const namesPrefix = layout.namesPrefix(scope);
  const slash = object.name.lastIndexOf("/");
  const key = object.name.slice(namesPrefix.length, slash);
  const version = layout.versionOf(object.name, object.name.slice(0, slash + 1));
  if (!object.name.startsWith(namesPrefix) || version === undefined) {
    throw corruptArtifact(`unexpected object ${object.name}`);
  }
  const expected: ManifestExpectation = { scope, version, ...(name === undefined ? {} : { name }) };
  const manifest = parseManifest(await manifestText(client, object, deadline), expected);
  if (nameKey(manifest.name).key !== key) {
    throw corruptArtifact(`object ${object.name} holds the manifest of another name`);
  }
  return manifest;
}

/**
 * Like readPublishedManifest, but always from the object's header, which alone records the
 * block digests that ranged and streamed reads verify.
 */
export async function readHeaderManifest(
  client: BucketClient,
  layout: ObjectLayout,
  scope: Scope,
  object: StoredObject,
  deadline: Deadline,
  name: string,
): Promise<Manifest & { blocks: readonly string[] }> {
  const { [MANIFEST_KEY]: _inline, ...rest } = object.customMetadata;
  const manifest = await readPublishedManifest(
    client,
    layout,
    scope,
    { ...object, customMetadata: rest },
    deadline,
    name,
  );
  if (manifest.blocks === undefined) {
    throw corruptArtifact(`object ${object.name} records no block digests`);
  }
  return { ...manifest, blocks: manifest.blocks };
}

async function manifestText(
  client: BucketClient,
  object: StoredObject,
  deadline: Deadline,
): Promise<string> {
  const inline = object.customMetadata[MANIFEST_KEY];
  if (inline !== undefined) return inline;
  const header = await client.download(deadline, object.name, {
    start: 0,
    end: headerBytesOf(object) - 1,
  });
  if (!header) throw notFound(`object ${object.name}`);
  const text = manifestLineText(header, object.name);
  if (!text.endsWith("\n")) throw corruptArtifact(`object ${object.name} has a broken header`);
  return text.slice(0, -1);
}
