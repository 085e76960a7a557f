import { ArtifactError } from "@artifact-kit/core";
import { expect } from "vitest";

/** The ArtifactError a call fails with; the test fails if it succeeds or throws anything else. */
export async function failure(promise: Promise<unknown>): Promise<ArtifactError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ArtifactError);
  return error as ArtifactError;
}
