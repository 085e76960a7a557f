import { type JsonObject, type JsonValue, validateMetadata } from "@artifact-kit/core";
import { optional } from "./optional.js";
import type { PartRecord } from "./part.js";

// The stored metadata holds two keys side by side: the bridge's own record of the Part, and
// ADK's customMetadata exactly as the caller gave it. Neither is ever read from the other.

/** Key of the bridge's record of how the Part was stored. */
export const PART_RECORD_KEY = "adkPart";
/** Key of ADK's customMetadata, kept as given. */
export const CUSTOM_METADATA_KEY = "adkCustomMetadata";

export function storedMetadata(
  record: PartRecord,
  customMetadata: Record<string, unknown> | undefined,
): JsonObject {
  return {
    [PART_RECORD_KEY]: { ...record },
    // Checked by core's validator on its own, so that an error names `customMetadata`.
    ...optional(
      CUSTOM_METADATA_KEY,
      customMetadata === undefined ? undefined : validateMetadata(customMetadata, "customMetadata"),
    ),
  };
}

/**
 * The bridge's record, or `inlineData` for an artifact the bridge did not write (saved by
 * another artifact-kit client): its bytes then come back with their stored MIME type.
 */
export function readPartRecord(metadata: JsonObject): PartRecord {
  const stored = metadata[PART_RECORD_KEY];
  if (!isJsonObject(stored)) return { kind: "inlineData" };
  const displayName = typeof stored.displayName === "string" ? stored.displayName : undefined;
  if (stored.kind === "text") return { kind: "text" };
  if (stored.kind === "fileData" && typeof stored.fileUri === "string") {
    return { kind: "fileData", fileUri: stored.fileUri, ...optional("displayName", displayName) };
  }
  return { kind: "inlineData", ...optional("displayName", displayName) };
}

/** ADK's customMetadata as saved, as a fresh object the caller may change. */
export function readCustomMetadata(metadata: JsonObject): JsonObject | undefined {
  const stored = metadata[CUSTOM_METADATA_KEY];
  return isJsonObject(stored) ? structuredClone(stored) : undefined;
}

function isJsonObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
