import type { IncomingMessage } from "node:http";
import { ArtifactError, invalidArgument } from "@artifact-kit/core";

function tooLarge(maxBytes: number): ArtifactError {
  return new ArtifactError("invalid_argument", `body: larger than ${maxBytes} bytes`, {
    detail: { field: "body", reason: "too_large", bound: maxBytes },
  });
}

/**
 * Reads a JSON body of at most `maxBytes`, refusing a larger declared length before
 * reading anything and stopping at the first byte over the bound otherwise.
 */
export async function readJsonBody(request: IncomingMessage, maxBytes: number): Promise<unknown> {
  const declared = Number(request.headers["content-length"] ?? "0");
  if (declared > maxBytes) throw tooLarge(maxBytes);
  const type = request.headers["content-type"] ?? "";
  if (!/^application\/json(\s*;|$)/i.test(type)) {
    throw invalidArgument("content-type", "must be application/json");
  }
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    length += chunk.byteLength;
    if (length > maxBytes) throw tooLarge(maxBytes);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks)));
  } catch {
    throw invalidArgument("body", "is not UTF-8 JSON");
  }
}
