import { ArtifactError, invalidArgument } from "@artifact-kit/core";

export function tooLarge(maxBytes: number, field = "body"): ArtifactError {
  return new ArtifactError("invalid_argument", `${field}: larger than ${maxBytes} bytes`, {
    detail: { field, reason: "too_large", bound: maxBytes },
  });
}

/** A declared Content-Length over the bound is refused before a byte is read. */
export function refuseDeclaredLength(request: Request, maxBytes: number, field = "body"): void {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > maxBytes) throw tooLarge(maxBytes, field);
}

/**
 * Reads a JSON body of at most `maxBytes`, refusing a larger declared length before
 * reading anything and stopping at the first byte over the bound otherwise.
 */
export async function readJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  refuseDeclaredLength(request, maxBytes);
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/json(\s*;|$)/i.test(type)) {
    throw invalidArgument("content-type", "must be application/json");
  }
  const chunks: Uint8Array[] = [];
  let length = 0;
  if (request.body !== null) {
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      length += value.byteLength;
      if (length > maxBytes) {
        await reader.cancel();
        throw tooLarge(maxBytes);
      }
      chunks.push(value);
    }
  }
  try {
    return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks)));
  } catch {
    throw invalidArgument("body", "is not UTF-8 JSON");
  }
}
