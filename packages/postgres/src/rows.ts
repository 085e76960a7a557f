import {
  type ArtifactMeta,
  corruptArtifact,
  type JsonObject,
  type Scope,
} from "@artifact-kit/core";
import { checkBlockDigests, sha256Hex } from "@artifact-kit/core/adapter";

// Stored records are checked as they are read: a row that does not describe a well-formed
// version (a hand-edited size, digest or metadata) is corrupt_artifact, never a wrong answer.

/** The columns of a version every read selects (int8 arrives as a string from pg). */
export interface VersionRow {
  version: unknown;
  mime_type: string;
  size: unknown;
  sha256: string;
  created_at: unknown;
  metadata: string;
  idempotency_key: string | null;
}

export interface StoredVersion {
  readonly meta: ArtifactMeta;
  readonly blocks: readonly string[];
}

/** The column list matching VersionRow, for a versions table aliased `v`. */
export const VERSION_COLUMNS =
  "v.version, v.mime_type, v.size, v.sha256, v.created_at, v.metadata, v.idempotency_key";

export function toMeta(scope: Scope, name: string, row: VersionRow): ArtifactMeta {
  const version = storedInteger(row.version, "version");
  const size = storedInteger(row.size, "size");
  if (!/^[0-9a-f]{64}$/.test(row.sha256)) {
    throw corruptArtifact(`version ${version} has a malformed stored sha256`, { version });
  }
  return Object.freeze({
    scope,
    name,
    version,
    mimeType: row.mime_type,
    size,
    sha256: row.sha256,
    createdAt: storedInteger(row.created_at, "createdAt"),
    metadata: storedMetadata(row.metadata, version),
    ...(row.idempotency_key === null ? {} : { idempotencyKey: row.idempotency_key }),
  });
}

export function toStoredVersion(
  scope: Scope,
  name: string,
  row: VersionRow & { block_digests: unknown },
): StoredVersion {
  const meta = toMeta(scope, name, row);
  const blocks = checkBlockDigests(row.block_digests, meta.size);
  if (!blocks) {
    throw corruptArtifact(`version ${meta.version} has malformed stored block digests`, {
      version: meta.version,
    });
  }
  return { meta, blocks };
}

/** The blocks of a whole read joined and checked against the recorded size and SHA-256. */
export function verifiedData(meta: ArtifactMeta, blocks: readonly Buffer[]): Uint8Array {
  const data = blocks.length === 1 ? (blocks[0] as Buffer) : Buffer.concat(blocks);
  if (data.byteLength !== meta.size) {
    throw corruptArtifact(
      `version ${meta.version} holds ${data.byteLength} bytes, ${meta.size} were recorded`,
      { version: meta.version },
    );
  }
  if (sha256Hex(data) !== meta.sha256) {
    throw corruptArtifact(`version ${meta.version} does not match its SHA-256`, {
      version: meta.version,
    });
  }
  return ownBytes(data);
}

/**
 * The bytes as a plain Uint8Array over memory of their own: a small Buffer from pg is a view
 * of Node's shared allocation pool, whose other bytes are not the caller's to see.
 */
export function ownBytes(data: Buffer): Uint8Array {
  if (data.byteOffset === 0 && data.buffer.byteLength === data.byteLength) {
    return new Uint8Array(data.buffer, 0, data.byteLength);
  }
  return new Uint8Array(data);
}

/**
 * A non-negative safe integer from an int8 column: a string by pg's default, or a number or
 * bigint where the application installed its own int8 type parser on the shared pg types.
 */
export function storedInteger(value: unknown, field: string): number {
  const number = typeof value === "string" || typeof value === "bigint" ? Number(value) : value;
  if (typeof number !== "number" || !Number.isSafeInteger(number) || number < 0) {
    throw corruptArtifact(`a stored ${field} is not a non-negative safe integer`);
  }
  return number;
}

function storedMetadata(text: string, version: number): JsonObject {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      return value as JsonObject;
    }
  } catch (error) {
    throw corruptArtifact(`version ${version} has unreadable stored metadata`, { version }, error);
  }
  throw corruptArtifact(`version ${version} has stored metadata that is not an object`, {
    version,
  });
}
