import { invalidArgument } from "@artifact-kit/core";

/**
 * A local file the user named could not be read or written (missing, a directory, no
 * permission): that is a bad argument, not a store failure.
 */
export function localFileError(field: string, path: string, error: unknown): Error {
  const reason = error instanceof Error ? error.message : String(error);
  const failure = invalidArgument(field, `${path}: ${reason}`);
  return Object.assign(failure, { cause: error });
}
