import { ARTIFACT_ERROR_CODES, type ArtifactErrorCode, isArtifactError } from "@artifact-kit/core";
import { OTHER_ERROR_TYPE } from "./attributes.js";

/**
 * The `error.type` of a failure: the ArtifactError code, which is stable and low-cardinality.
 * An ArtifactError from another copy of core is recognised by shape. Anything else is named by
 * its class (`TypeError`), or `_OTHER` when it is not an Error at all.
 */
export function errorType(error: unknown): string {
  if (isArtifactError(error)) return error.code;
  if (typeof error !== "object" || error === null) return OTHER_ERROR_TYPE;
  const { name, code } = error as { name?: unknown; code?: unknown };
  if (name === "ArtifactError" && ARTIFACT_ERROR_CODES.includes(code as ArtifactErrorCode)) {
    return code as string;
  }
  return error instanceof Error ? error.name : OTHER_ERROR_TYPE;
}
