import { corruptArtifact } from "./errors.js";
import { MAX_IDEMPOTENCY_KEY_BYTES } from "./limits.js";
import { sameScope } from "./scope.js";
import { checkBlockDigests } from "./transfer/blocks.js";
import type { ArtifactMeta, Scope } from "./types.js";
import {
  validateMetadata,
  validateMimeType,
  validateName,
  validateScope,
  validateText,
} from "./validate.js";

// The record an object-store adapter writes beside an artifact's bytes, and the checks a
// reader runs on it: a stored manifest is untrusted input until it names what was asked for.

/** An artifact's record as an adapter stores it, with what only the adapter needs. */
export interface StoredManifest extends ArtifactMeta {
  /** Identifies the put that wrote it, so a retried create-only write can recognise itself. */
  readonly requestId: string;
  /** SHA-256 of each transfer block of the data, for verified ranges; absent when not kept. */
  readonly blocks?: readonly string[];
}

/** What a reader expects a manifest to say; `name` is unknown when resolving a key. */
export interface ManifestExpectation {
  readonly scope: Scope;
  readonly name?: string;
  readonly version: number;
}

/** The manifest as JSON, tagged with the adapter's `format`. */
export function storedManifestJson(manifest: StoredManifest, format: string): string {
  const { scope, name, version, mimeType, size, sha256, createdAt, metadata } = manifest;
  const { requestId, idempotencyKey, blocks } = manifest;
  return JSON.stringify({
    format,
    scope,
    name,
    version,
    mimeType,
    size,
    sha256,
    createdAt,
    metadata,
    requestId,
    ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
    ...(blocks === undefined ? {} : { blocks }),
  });
}

/**
 * Parses stored manifest JSON of the given `format` and checks it names the expected scope,
 * name and version; anything else is corrupt_artifact.
 */
export function parseStoredManifest(
  json: string,
  format: string,
  expected: ManifestExpectation,
): StoredManifest {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (error) {
    throw corruptArtifact("stored manifest is not JSON", undefined, error);
  }
  const manifest = checkShape(raw, format);
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

/** The public record of a stored manifest, without what only the adapter needs. */
export function metaOfManifest(manifest: StoredManifest): ArtifactMeta {
  const { requestId: _requestId, blocks: _blocks, ...meta } = manifest;
  return Object.freeze(meta);
}

function checkShape(raw: unknown, format: string): StoredManifest {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw corruptArtifact("stored manifest is not an object");
  }
  const fields = raw as Record<string, unknown>;
  if (fields.format !== format) throw corruptArtifact("stored manifest has an unknown format");
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
    const idempotencyKey =
      fields.idempotencyKey === undefined
        ? undefined
        : validateText(fields.idempotencyKey, "idempotencyKey", MAX_IDEMPOTENCY_KEY_BYTES);
    return Object.freeze({
      scope: validateScope(fields.scope),
      name: validateName(fields.name),
      version: version as number,
      mimeType: validateMimeType(fields.mimeType),
      size: size as number,
      sha256,
      createdAt,
      metadata: validateMetadata(fields.metadata),
      ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
      requestId,
      ...(blocks === undefined ? {} : { blocks }),
    });
  } catch (error) {
    throw corruptArtifact("stored manifest holds an invalid field", undefined, error);
  }
}
