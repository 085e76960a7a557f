import { type ArtifactMeta, corruptArtifact, decodeUtf8 } from "@artifact-kit/core";
import {
  type ManifestExpectation,
  metaOfManifest,
  parseStoredManifest,
  type StoredManifest,
  sha256Hex,
  storedManifestJson,
} from "@artifact-kit/core/adapter";

/**
 * A published object is one create-only write: a one-line JSON manifest, "\n", then the data.
 * JSON.stringify escapes every newline inside strings, so the first "\n" ends the manifest.
 * The manifest is core's stored manifest (shared with s3), in this adapter's format.
 */
const FORMAT = "artifact-kit/gcs@1";
const NEWLINE = 0x0a;

/** Block digests ride in the object's header line only, never in the inline copy. */
export type Manifest = StoredManifest;
export type { ManifestExpectation };

const encoder = new TextEncoder();

/** The manifest line of the object's header; `inline: true` for the copy in custom metadata. */
export function manifestJson(manifest: Manifest, inline = false): string {
  if (!inline) return storedManifestJson(manifest, FORMAT);
  const { blocks: _blocks, ...withoutBlocks } = manifest;
  return storedManifestJson(withoutBlocks, FORMAT);
}

/** The header of a published object: the manifest line and its newline. */
export function encodeHeader(json: string): Uint8Array {
  return encoder.encode(`${json}\n`);
}

/** The object body and the length of its header (manifest line and newline). */
export function encodeArtifactObject(
  json: string,
  data: Uint8Array,
): { body: Uint8Array; headerBytes: number } {
  const header = encodeHeader(json);
  const body = new Uint8Array(header.byteLength + data.byteLength);
  body.set(header);
  body.set(data, header.byteLength);
  return { body, headerBytes: header.byteLength };
}

/** The manifest line's text; malformed UTF-8 is corruption, never silently replaced. */
export function manifestLineText(bytes: Uint8Array, objectName: string): string {
  try {
    return decodeUtf8(bytes);
  } catch (error) {
    throw corruptArtifact(
      `object ${objectName} has a manifest that is not UTF-8`,
      undefined,
      error,
    );
  }
}

/**
 * Splits, validates and verifies a downloaded object body against what was asked for. The
 * data is a copy of its own, cut from the body.
 */
export function decodeArtifactObject(
  body: Uint8Array,
  expected: ManifestExpectation,
  objectName: string,
): { meta: ArtifactMeta; data: Uint8Array } {
  const newline = body.indexOf(NEWLINE);
  if (newline < 0) throw corruptArtifact("stored object has no manifest line");
  const manifest = parseManifest(manifestLineText(body.subarray(0, newline), objectName), expected);
  const data = body.slice(newline + 1);
  if (data.byteLength !== manifest.size) {
    throw corruptArtifact(
      `stored data is ${data.byteLength} bytes, manifest says ${manifest.size}`,
    );
  }
  if (sha256Hex(data) !== manifest.sha256) {
    throw corruptArtifact("stored data does not match the manifest's sha256");
  }
  return { meta: metaOf(manifest), data };
}

/** Parses a manifest and checks it names the expected scope, name and version. */
export function parseManifest(json: string, expected: ManifestExpectation): Manifest {
  return parseStoredManifest(json, FORMAT, expected);
}

/** The public record of a manifest, without the adapter's request id and block digests. */
export const metaOf = metaOfManifest;
