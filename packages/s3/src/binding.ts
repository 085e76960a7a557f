import { corruptArtifact, type JsonObject } from "@artifact-kit/core";
import type { IdempotentPayload } from "@artifact-kit/core/adapter";

/**
 * What a binding object records: the version a caller's idempotency key was bound to, the
 * request id of the put that bound it (and publishes under it), and that put's payload, so a
 * retry is judged even before the version is published.
 */
export interface KeyBinding extends IdempotentPayload {
  readonly version: number;
  readonly requestId: string;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeBinding(binding: KeyBinding): Uint8Array {
  const { version, requestId, size, sha256, mimeType, metadata } = binding;
  return encoder.encode(JSON.stringify({ version, requestId, size, sha256, mimeType, metadata }));
}

export function decodeBinding(bytes: Uint8Array, objectKey: string): KeyBinding {
  let raw: unknown;
  try {
    raw = JSON.parse(decoder.decode(bytes));
  } catch (error) {
    throw corruptArtifact(`binding ${objectKey} is not JSON`, undefined, error);
  }
  const fields = (typeof raw === "object" && raw !== null ? raw : {}) as Record<string, unknown>;
  const { version, requestId, size, sha256, mimeType, metadata } = fields;
  if (
    !Number.isSafeInteger(version) ||
    typeof requestId !== "string" ||
    !Number.isSafeInteger(size) ||
    typeof sha256 !== "string" ||
    typeof mimeType !== "string" ||
    typeof metadata !== "object" ||
    metadata === null ||
    Array.isArray(metadata)
  ) {
    throw corruptArtifact(`binding ${objectKey} is malformed`);
  }
  return {
    version: version as number,
    requestId,
    size: size as number,
    sha256,
    mimeType,
    metadata: metadata as JsonObject,
  };
}
