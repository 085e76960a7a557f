import { type ArtifactErrorCode, isArtifactError } from "@artifact-kit/core";

/** The ArtifactError code a call fails with, or "ok"; anything but an ArtifactError is rethrown. */
export async function codeOf(promise: Promise<unknown>): Promise<ArtifactErrorCode | "ok"> {
  try {
    await promise;
    return "ok";
  } catch (error) {
    if (isArtifactError(error)) return error.code;
    throw error;
  }
}
