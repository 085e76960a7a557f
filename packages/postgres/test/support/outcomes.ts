import { ArtifactError } from "@artifact-kit/core";

// What the fault tests share: payloads derived from a seed, byte equality that does not diff
// megabytes element by element, and a call's outcome as one comparable string.

/** `size` bytes derived from `seed` only, so a retry can repeat them. */
export const data = (size: number, seed: number) =>
  new Uint8Array(size).map((_, i) => (i + seed) % 251);

/** Byte equality without vitest's element-by-element diffing of megabyte arrays. */
export const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

/** "acknowledged", or the code of the ArtifactError it failed with; anything else is named. */
export const outcomeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => "acknowledged",
    (error: unknown) =>
      error instanceof ArtifactError ? error.code : `not an ArtifactError: ${String(error)}`,
  );
