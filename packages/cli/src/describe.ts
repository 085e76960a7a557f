import type { ArtifactMeta } from "@artifact-kit/core";

/** One line per version: what `versions` prints and what `info` starts with. */
export function describeVersion(meta: ArtifactMeta): string {
  const when = new Date(meta.createdAt).toISOString();
  const metadata =
    Object.keys(meta.metadata).length > 0 ? `  ${JSON.stringify(meta.metadata)}` : "";
  return `v${meta.version}  ${meta.size} B  ${meta.mimeType}  ${when}  sha256 ${meta.sha256.slice(0, 12)}…${metadata}`;
}

export function describeMeta(meta: ArtifactMeta): string[] {
  return [
    `name:      ${meta.name}`,
    `version:   ${meta.version}`,
    `mimeType:  ${meta.mimeType}`,
    `size:      ${meta.size} B`,
    `sha256:    ${meta.sha256}`,
    `createdAt: ${new Date(meta.createdAt).toISOString()}`,
    `metadata:  ${JSON.stringify(meta.metadata)}`,
  ];
}
