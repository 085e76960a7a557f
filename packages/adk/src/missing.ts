import { isArtifactError } from "@artifact-kit/core";

/**
 * A missing artifact as `undefined` (ADK's contract answers so for reads, and deleting one is
 * done); any other failure as thrown.
 */
export async function undefinedIfNotFound<T>(pending: Promise<T>): Promise<T | undefined> {
  try {
    return await pending;
  } catch (error) {
    if (isArtifactError(error, "not_found")) return undefined;
    throw error;
  }
}
