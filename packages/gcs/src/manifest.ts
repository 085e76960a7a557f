import {
  type Artifact,
  type ArtifactMeta,
  checkBlockDigests,
  corruptArtifact,
  decodeUtf8,
  MAX_IDEMPOTENCY_KEY_BYTES,
  type Scope,
  sameScope,
  sha256Hex,
  validateMetadata,
  validateMimeType,
  validateName,
  validateScope,
  validateText,
} from "@artifact-kit/core";

/**
 * A published object is one create-only write: a one-line JSON manifest, "\n", then the data.
 * JSON.stringify escapes every newline inside strings, so the first "\n" ends the manifest.
 */
const FORMAT = "artifact-kit/gcs@1";
const NEWLINE = 0x0a;

export interface Manifest extends ArtifactMeta {
  /** Identifies the put that wrote the object, so a retried write can recognise itself. */
  readonly requestId: string;
  /**
   * SHA-256 of each 1 MiB block of the data, for verified byte ranges. Always in the object's
   * header line; left out of the inline copy in custom metadata, which must stay small.
   */
  readonly blocks?: readonly string[];
}

/** What a reader expects the manifest to say; `name` is unknown when resolving a key. */
export interface ManifestExpectation {
  readonly scope: Scope;
  readonly name?: string;
  readonly version: number;
}

const encoder = new TextEncoder();

/** The manifest line of the object's header; `inline: true` for the copy in custom metadata. */
export function manifestJson(manifest: Manifest, inline = false): string {
  const { blocks, ...record } = manifest;
  return JSON.stringify({
    format: FORMAT,
    ...record,
    ...(inline || blocks === undefined ? {} : { blocks }),
  });
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

/** Splits, validates and verifies a downloaded object body against what was asked for. */
export function decodeArtifactObject(
  body: Uint8Array,
  expected: ManifestExpectation,
  objectName: string,
): Artifact {
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
  return Object.freeze({ ...metaOf(manifest), data });
}

/** Parses a manifest and checks it names the expected scope, name and version. */
export function parseManifest(json: string, expected: ManifestExpectation): Manifest {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (error) {
    throw corruptArtifact("stored manifest is not JSON", undefined, error);
  }
  const manifest = checkManifestShape(raw);
  if (!sameScope(manifest.scope, expected.scope)) {
    throw corruptArtifact("stored manifest names another scope");
  }
  if (expected.name !== undefined && manifest.name !== expected.name) {
    throw corruptArtifact("stored manifest names another artifact");
  }
  if (manifest.version !== expected.version) {
    throw corruptArtifact(
      `stored manifest says version ${manifest.version}, expected ${expected.version}`,
    );
  }
  return manifest;
}

function checkManifestShape(raw: unknown): Manifest {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw corruptArtifact("stored manifest is not an object");
  }
  const fields = raw as Record<string, unknown>;
  if (fields.format !== FORMAT) throw corruptArtifact("stored manifest has an unknown format");
  const { version, size, sha256, createdAt, requestId } = fields;
  if (!Number.isSafeInteger(version) || (version as number) < 1) {
    throw corruptArtifact("stored manifest has no valid version");
  }
  if (!Number.isSafeInteger(size) || (size as number) < 0) {
    throw corruptArtifact("stored manifest has no valid size");
  }
  if (typeof sha256 !== "string" || !/^[0-9a-f]{64}$/.test(sha256)) {
    throw corruptArtifact("stored manifest has no valid sha256");
  }
  if (typeof createdAt !== "number" || !Number.isFinite(createdAt)) {
    throw corruptArtifact("stored manifest has no valid createdAt");
  }
  if (typeof requestId !== "string") throw corruptArtifact("stored manifest has no requestId");
  const blocks =
    fields.blocks === undefined ? undefined : checkBlockDigests(fields.blocks, size as number);
  if (fields.blocks !== undefined && blocks === undefined) {
    throw corruptArtifact("stored manifest has invalid block digests");
  }
  try {
    return Object.freeze({
      scope: validateScope(fields.scope),
      name: validateName(fields.name),
      version: version as number,
      mimeType: validateMimeType(fields.mimeType),
      size: size as number,
      sha256,
      createdAt,
      metadata: validateMetadata(fields.metadata),
      ...(fields.idempotencyKey === undefined
        ? {}
        : {
            idempotencyKey: validateText(
              fields.idempotencyKey,
              "idempotencyKey",
              MAX_IDEMPOTENCY_KEY_BYTES,
            ),
          }),
      requestId,
      ...(blocks === undefined ? {} : { blocks }),
    });
  } catch (error) {
    throw corruptArtifact("stored manifest holds an invalid field", undefined, error);
  }
}

/** The public record of a manifest, without the adapter's request id. */
export function metaOf(manifest: Manifest): ArtifactMeta {
  const { requestId: _requestId, blocks: _blocks, ...meta } = manifest;
  return Object.freeze(meta);
}
