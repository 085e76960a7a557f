import { ArtifactError, type ArtifactMeta, type Scope } from "@artifact-kit/core";

// How runs map onto an ArtifactService. Each run is its own scope, so a run can never see
// another run's files and the service's per-scope quotas apply per run. Because a service
// cannot list scopes, one registry scope holds a marker per run that has files.

/** A run's files: one artifact per path, whose latest version is the current content. */
export function runScope(namespace: string, runId: string): Scope {
  return { kind: "user", app: namespace, user: runId };
}

/** The registry of runs holding files. */
export function registryScope(namespace: string): Scope {
  return { kind: "app", app: namespace };
}

/** Hex of the UTF-8 id: a run id may contain "/" or "..", which a name may not. */
export function markerName(runId: string): string {
  return Buffer.from(runId, "utf8").toString("hex");
}

export function runIdOfMarker(name: string): string {
  const runId = Buffer.from(name, "hex").toString("utf8");
  if (markerName(runId) !== name) {
    throw new ArtifactError("corrupt_artifact", `registry entry "${name}" is not a run marker`);
  }
  return runId;
}

export type Encoding = "utf8" | "bytes";

/** What the store keeps per file in artifact metadata, besides the bytes. */
export interface FileRecord {
  readonly stepId: string;
  /** Registration order within the run; an upsert keeps it. */
  readonly order: number;
  /** Whether `find` gives the content back as a string or as bytes. */
  readonly encoding: Encoding;
}

export const MIME_TYPES: Readonly<Record<Encoding, string>> = Object.freeze({
  utf8: "text/plain; charset=utf-8",
  bytes: "application/octet-stream",
});

/** Reads a file record back from artifact metadata; anything else was not written by a run store. */
export function fileRecordOf(meta: ArtifactMeta): FileRecord {
  const { stepId, order, encoding } = meta.metadata;
  if (
    typeof stepId !== "string" ||
    typeof order !== "number" ||
    !Number.isSafeInteger(order) ||
    (encoding !== "utf8" && encoding !== "bytes")
  ) {
    throw new ArtifactError(
      "corrupt_artifact",
      `"${meta.name}" has no run-store record (stepId, order, encoding) in its metadata`,
    );
  }
  return { stepId, order, encoding };
}
