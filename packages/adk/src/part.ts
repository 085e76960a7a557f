import { type Artifact, invalidArgument } from "@artifact-kit/core";
import type { SaveArtifactRequest } from "@google/adk";
import { optional } from "./optional.js";

/** ADK's artifact payload (`Part` from `@google/genai`), named through ADK's own request type. */
export type Part = SaveArtifactRequest["artifact"];

/** What the bridge records beside the bytes so that a load gives back the kind of Part saved. */
export type PartRecord =
  | { readonly kind: "inlineData"; readonly displayName?: string }
  | { readonly kind: "text" }
  | { readonly kind: "fileData"; readonly fileUri: string; readonly displayName?: string };

interface EncodedPart {
  readonly data: Uint8Array;
  /** Absent when the Part names none: the service then applies its default. */
  readonly mimeType?: string;
  readonly record: PartRecord;
}

const TEXT_MIME_TYPE = "text/plain";
const NO_BYTES = new Uint8Array(0);

/** Splits a Part into stored bytes, a MIME type and the record needed to rebuild it. */
export function encodePart(part: Part): EncodedPart {
  // The same precedence as ADK's own services: inline bytes, then text, then a file reference.
  const { inlineData, text, fileData } = part;
  if (inlineData) {
    return {
      data: Buffer.from(inlineData.data ?? "", "base64"),
      ...optional("mimeType", inlineData.mimeType),
      record: { kind: "inlineData", ...optional("displayName", inlineData.displayName) },
    };
  }
  if (typeof text === "string") {
    return {
      data: new TextEncoder().encode(text),
      mimeType: TEXT_MIME_TYPE,
      record: { kind: "text" },
    };
  }
  if (fileData) {
    if (!fileData.fileUri) throw invalidArgument("artifact.fileData.fileUri", "is required");
    return {
      data: NO_BYTES,
      ...optional("mimeType", fileData.mimeType),
      record: {
        kind: "fileData",
        fileUri: fileData.fileUri,
        ...optional("displayName", fileData.displayName),
      },
    };
  }
  // ADK's own wording, so code and tests written against ADK's services match it.
  throw invalidArgument(
    "artifact",
    "Artifact must have either inlineData or text content. A fileData reference is accepted too.",
  );
}

/** Rebuilds the Part a stored artifact was saved from. */
export function decodePart(artifact: Artifact, record: PartRecord): Part {
  switch (record.kind) {
    case "text":
      return { text: new TextDecoder().decode(artifact.data) };
    case "fileData":
      return {
        fileData: {
          fileUri: record.fileUri,
          mimeType: artifact.mimeType,
          ...optional("displayName", record.displayName),
        },
      };
    case "inlineData":
      return {
        inlineData: {
          data: base64(artifact.data),
          mimeType: artifact.mimeType,
          ...optional("displayName", record.displayName),
        },
      };
  }
}

function base64(data: Uint8Array): string {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("base64");
}
