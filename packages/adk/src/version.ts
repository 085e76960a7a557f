import { invalidArgument } from "@artifact-kit/core";

// ADK numbers versions from 0, artifact-kit from 1: one fixed offset in both directions, so
// an ADK version names the same stored version for as long as that version lives.

export function toAdkVersion(version: number): number {
  return version - 1;
}

export function fromAdkVersion(version: number): number {
  if (!Number.isSafeInteger(version) || version < 0 || !Number.isSafeInteger(version + 1)) {
    throw invalidArgument("version", "must be a non-negative integer (ADK versions start at 0)");
  }
  return version + 1;
}
