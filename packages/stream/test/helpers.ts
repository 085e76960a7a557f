import { isArtifactError } from "@artifact-kit/core";

export const MiB = 1024 * 1024;

/** `size` bytes in which no 1 KiB repeats soon, so that a misplaced range shows. */
export function patterned(size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 7 + (i >>> 10)) & 0xff;
  return bytes;
}

/** The ArtifactError code `action` fails with; any other outcome fails the test. */
export async function codeOf(action: () => Promise<unknown>): Promise<string> {
  try {
    await action();
  } catch (error) {
    if (isArtifactError(error)) return error.code;
    throw error;
  }
  throw new Error("expected an ArtifactError");
}
