import { type ArtifactMeta, scopeKey, sha256Hex } from "@artifact-kit/core";

// A copy is published on the target under an idempotency key derived from the source
// version it copies: its scope, name, version and SHA-256. A rerun finds the key on the
// target's records (listVersions carries it) and publishes nothing twice; a put cut short
// by a kill and retried under the same key publishes at most once. The source version
// number is spelled out in the key, so the target's records say where each came from.

const PREFIX = "artifact-kit-copy";

/** `artifact-kit-copy v7 <sha256 of [scope, name, version, sha256]>` (at most 96 bytes). */
export function copyKey(source: ArtifactMeta): string {
  const identity = JSON.stringify([
    scopeKey(source.scope),
    source.name,
    source.version,
    source.sha256,
  ]);
  return `${PREFIX} v${source.version} ${sha256Hex(identity)}`;
}
