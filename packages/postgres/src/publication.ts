import { type ArtifactMeta, quotaExceeded, unavailable } from "@artifact-kit/core";
import {
  type DataDigest,
  idempotentVersionDeleted,
  type ParsedPublication,
  replayIdempotentPut,
} from "@artifact-kit/core/adapter";
import { sqlState } from "./client-loan.js";
import type { PostgresConfig } from "./config.js";
import type { Failure } from "./database.js";
import { storedInteger, toMeta, type VersionRow } from "./rows.js";

// What put_artifact and publish_upload (migrations.ts) take beside the bytes, and how their
// answer and their own SQLSTATEs become the caller's answer or error.

/** The row put_artifact and publish_upload return. */
export interface PublishedRow extends Omit<VersionRow, "idempotency_key"> {
  outcome: "published" | "replayed" | "deleted";
}

/** SQLSTATEs of the store's functions: a quota bound (message = its name), a lost upload. */
const QUOTA_EXCEEDED = "AKQ01";
const UPLOAD_REPAIRED = "AKU01";
const QUOTA_BOUNDS = [
  "maxScopeBytes",
  "maxTotalBytes",
  "maxScopeArtifacts",
  "maxTotalArtifacts",
] as const;

/** The values $5..$14 of put_artifact and publish_upload after the bytes. */
export function publicationValues(
  config: PostgresConfig,
  publication: ParsedPublication,
  digest: DataDigest,
): unknown[] {
  const { maxScopeBytes, maxTotalBytes, maxScopeArtifacts, maxTotalArtifacts } = config;
  return [
    publication.mimeType,
    digest.sha256,
    digest.blocks,
    JSON.stringify(publication.metadata),
    publication.idempotencyKey ?? null,
    maxScopeBytes,
    maxTotalBytes,
    maxScopeArtifacts,
    maxTotalArtifacts,
  ];
}

/** The published version, or the replayed one checked against the replaying put. */
export function publishedMeta(
  publication: ParsedPublication,
  digest: DataDigest,
  rows: PublishedRow[],
): ArtifactMeta {
  const [row] = rows;
  if (!row) throw unavailable("publish: the server returned no version");
  if (row.outcome === "deleted") idempotentVersionDeleted(storedInteger(row.version, "version"));
  const meta = toMeta(publication.scope, publication.name, {
    ...row,
    idempotency_key: publication.idempotencyKey ?? null,
  });
  if (row.outcome === "replayed") {
    // Compared as stored: metadata travels as JSON text, where -0 is 0.
    const metadata = JSON.parse(JSON.stringify(publication.metadata));
    return replayIdempotentPut(meta, { ...publication, metadata, ...digest });
  }
  return meta;
}

/** Maps the publishing functions' own SQLSTATEs: a quota bound, an upload repair removed. */
export function publicationFailure(config: PostgresConfig): Failure {
  return (error) => {
    const code = sqlState(error);
    if (code === UPLOAD_REPAIRED) {
      return unavailable("the upload's lease ran out and repair removed its staged blocks", error);
    }
    if (code !== QUOTA_EXCEEDED) return undefined;
    const bound = QUOTA_BOUNDS.find((candidate) => candidate === (error as Error).message);
    if (!bound) return undefined;
    return quotaExceeded(bound, config[bound], `put would exceed ${bound}`);
  };
}
