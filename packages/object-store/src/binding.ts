import { corruptArtifact, validateMetadata, validateMimeType } from "@artifact-kit/core";
import type { IdempotentPayload } from "@artifact-kit/core/adapter";
import { lineText } from "./header-format.js";

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

export function encodeBinding(binding: KeyBinding): Uint8Array {
  const { version, requestId, size, sha256, mimeType, metadata } = binding;
  return encoder.encode(JSON.stringify({ version, requestId, size, sha256, mimeType, metadata }));
}

export function decodeBinding(bytes: Uint8Array, objectKey: string): KeyBinding {
  let raw: unknown;
  try {
    raw = JSON.parse(lineText(bytes, objectKey));
  } catch (error) {
    throw corruptArtifact(`binding ${objectKey} is not JSON`, undefined, error);
  }
  const fields = (typeof raw === "object" && raw !== null ? raw : {}) as Record<string, unknown>;
  const { version, requestId, size, sha256 } = fields;
  if (
    !Number.isSafeInteger(version) ||
    (version as number) < 1 ||
    typeof requestId !== "string" ||
    !Number.isSafeInteger(size) ||
    typeof sha256 !== "string"
  ) {
    throw corruptArtifact(`binding ${objectKey} is malformed`);
  }
  try {
    return {
      version: version as number,
      requestId,
      size: size as number,
      sha256,
      mimeType: validateMimeType(fields.mimeType),
      metadata: validateMetadata(fields.metadata),
    };
  } catch (error) {
    throw corruptArtifact(`binding ${objectKey} holds an invalid field`, undefined, error);
  }
}
