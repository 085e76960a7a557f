import type { ArtifactAttachment } from "@artifact-kit/core";
import type { Part } from "./part.js";

// What a model is shown of an attached artifact, by MIME type, as ADK's LoadArtifactsTool
// does: media and PDF inline, text-like content as text, anything else described in words.

const INLINE_PREFIXES = ["image/", "audio/", "video/"];
const INLINE_TYPES = new Set(["application/pdf"]);
const TEXT_LIKE_TYPES = new Set(["application/json", "application/xml", "application/csv"]);

function essence(mimeType: string): string {
  return (mimeType.split(";")[0] ?? "").trim().toLowerCase();
}

export function partForModel(attachment: ArtifactAttachment, filename: string): Part {
  const type = essence(attachment.mimeType);
  const { data } = attachment;
  if (INLINE_PREFIXES.some((prefix) => type.startsWith(prefix)) || INLINE_TYPES.has(type)) {
    const base64 = Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("base64");
    return { inlineData: { data: base64, mimeType: attachment.mimeType } };
  }
  if (type.startsWith("text/") || TEXT_LIKE_TYPES.has(type)) {
    return { text: new TextDecoder().decode(data) };
  }
  return {
    text: `[Binary artifact: ${filename}, type: ${type}, size: ${data.byteLength} bytes. Content cannot be displayed inline.]`,
  };
}
