/**
 * What differs between the object-store adapters' on-bucket formats. Each adapter keeps the
 * format its buckets were written in (existing buckets keep working); a new adapter picks
 * the choices that suit its backend.
 */
export interface ObjectStoreDialect {
  /**
   * How a published object holds its manifest, and the format name written into it (e.g.
   * "artifact-kit/s3@1"; a manifest with another name is refused as corrupt).
   *
   * - "trailer": the data, then the manifest as one JSON line, then a fixed 11-byte tail
   *   giving the line's length. One suffix read finds the manifest; a streamed upload
   *   appends it as its last part. For backends whose multipart uploads can only append (S3).
   * - "header": the manifest line and "\n", then the data; a copy of the manifest (without
   *   block digests) rides in custom metadata when it fits, so a listing that carries
   *   metadata reads records with no further request. For backends that list metadata (GCS).
   */
  readonly format: { readonly kind: "trailer" | "header"; readonly name: string };
  /**
   * Where an idempotency key's binding lives: "name-and-key" at
   * `s/<scope>/k/<sha256 of name NUL key>` (S3), or "per-name" at
   * `s/<scope>/k/<name key>/<sha256 of key>` (GCS).
   */
  readonly bindings: "name-and-key" | "per-name";
  /**
   * How a deletion is decided and remembered:
   * - "markers": each delete first writes the version's permanent deletion marker
   *   `s/<scope>/d/<name key>/<version>` create-only (what a keyed put's retry reads), deletes
   *   the object, then creates its seal `s/<scope>/e/<name key>/<version>` create-only
   *   (holding its request id): the one that creates the seal is the one that deleted (S3,
   *   whose DeleteObject cannot say). A delete that failed between them leaves the version
   *   as the reads show it, and the next delete of a listed version finishes it.
   * - "allocation-flags": a keyed version's allocation object is flagged deleted (needs
   *   `addMetadata`), then the object is deleted conditionally on its incarnation, and the
   *   delete that removes it is the one that deleted (GCS; needs `tellsDeletes`).
   */
  readonly deletions: "markers" | "allocation-flags";
  /**
   * How a scope's marker `c/<sha256 of scope>` (written create-only before the scope's first
   * publication, never removed; what listScopes lists) holds the scope it stands for:
   * - "body": the body is `{"scope": <scope>}`, read with one ranged get per marker an
   *   instance has not met yet (S3, whose listings carry no metadata).
   * - "metadata": the body is the scope's JSON and so is the custom metadata entry
   *   `artifactKitScope`, which the listing carries: no read per marker (GCS). Needs a bucket
   *   whose `list` answers carry custom metadata, and metadata values that may hold any
   *   UTF-8 (ids are arbitrary strings).
   */
  readonly scopeMarkers: "body" | "metadata";
  /**
   * Where a page of versions reads its records from:
   * - "listing" (the default): the listing carries each record (a header format's metadata
   *   copy, on a bucket whose listings carry metadata: GCS, Azure), or each is read.
   * - "chunks": create-only record chunks under `r/`, one per settled range of versions,
   *   written by the readers that need them (see record-chunks.ts): a page costs its listing,
   *   one listing of chunks and a few chunk reads, for backends whose listings carry no
   *   metadata (S3). Buckets written before chunks existed read as they did, and gain them.
   */
  readonly versionRecords?: "listing" | "chunks";
}
