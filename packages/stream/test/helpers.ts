import { isArtifactError } from "@artifact-kit/core";

export const MiB = 1024 * 1024;

/** `size` bytes in which no 1 KiB repeats soon, so that a misplaced range shows. */
export function patterned(size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 7 + (i >>> 10)) & 0xff;
  return bytes;
}

/**
 * The ArtifactError code `action` fails with; any other outcome fails the test, and so does a
 * refusal that does not say why (a message that is empty, or no more than the field it names),
 * as the conformance kit requires of every error it expects.
 */
export async function codeOf(action: () => Promise<unknown>): Promise<string> {
  try {
    await action();
  } catch (error) {
    if (!isArtifactError(error)) throw error;
    const field = error.detail?.field;
    const said = error.message.replace(typeof field === "string" ? `${field}:` : "", "").trim();
    if (said.length === 0) throw new Error(`a ${error.code} that says nothing about why`);
    return error.code;
  }
  throw new Error("expected an ArtifactError");
}
