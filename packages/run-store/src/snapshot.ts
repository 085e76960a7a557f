import type { RunArtifact, RunContent } from "@artifact-kit/core";

/** Strings are immutable; bytes are copied so that no caller can reach stored bytes. */
export function copyContent(content: RunContent): RunContent {
  return typeof content === "string" ? content : new Uint8Array(content);
}

/** A frozen array of frozen entries: what `artifacts()` hands out. */
export function freezeSnapshot(entries: readonly RunArtifact[]): readonly RunArtifact[] {
  return Object.freeze(entries.map((entry) => Object.freeze({ ...entry })));
}
