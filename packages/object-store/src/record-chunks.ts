import { type Scope, scopeDigest } from "@artifact-kit/core";
import {
  nameKey,
  parseStoredManifest,
  type StoredManifest,
  storedManifestJson,
} from "@artifact-kit/core/adapter";
import type { ObjectInfo } from "./bucket.js";
import { inRange, type VersionRange } from "./version-ranges.js";

/**
 * A record chunk: one create-only object holding the records of the published versions of
 * one name in one version range, so that a page of versions reads a few chunks instead of
 * one manifest per version (for backends whose listings carry no records: S3).
 *
 * It is a cache of immutable facts, never the truth about what is live: a version's record
 * never changes once published and its number is never reused, so a record stays true; the
 * listing of version objects says which versions are live (a deleted one is simply not
 * listed), and a listed version the chunk has no record for is read from its manifest.
 * Each record carries the size and content tag (S3's ETag) the listing gave for the object
 * it was read from, and is used only for an object listed with the same size and tag. A chunk
 * that does not parse, or has one record that does not check, is ignored whole.
 *
 *   {"format":"artifact-kit/version-records@1","first":1,"span":100,
 *    "records":[{"size":123,"tag":"\"9b2c...\"","manifest":{...manifest, no block digests}}]}
 */
const CHUNK_FORMAT = "artifact-kit/version-records@1";

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/** A published object as listed, and the manifest read from it. */
export interface ListedRecord {
  readonly object: ObjectInfo;
  readonly manifest: StoredManifest;
}

/** A chunk's records by version, each with what the listing said of its object. */
export type ChunkRecords = ReadonlyMap<number, ChunkRecord>;

interface ChunkRecord {
  readonly size: number;
  readonly tag?: string;
  readonly manifest: StoredManifest;
}

export function encodeChunk(
  range: VersionRange,
  records: readonly ListedRecord[],
  manifestFormat: string,
): Uint8Array {
  const entries = records.map(({ object, manifest }) => {
    const { blocks: _blocks, ...record } = manifest;
    return {
      size: object.size,
      ...(object.tag === undefined ? {} : { tag: object.tag }),
      manifest: JSON.parse(storedManifestJson(record, manifestFormat)) as unknown,
    };
  });
  const chunk = { format: CHUNK_FORMAT, first: range.first, span: range.span, records: entries };
  return encoder.encode(JSON.stringify(chunk));
}

/**
 * The records of a chunk of `range` for the name key `key` in `scope`, every one checked
 * (manifest format, scope, name key, a version inside the range); undefined when anything in
 * the chunk is wrong: it is then ignored whole, and read around.
 */
export function decodeChunk(
  bytes: Uint8Array,
  range: VersionRange,
  manifestFormat: string,
  scope: Scope,
  key: string,
): ChunkRecords | undefined {
  try {
    const chunk = JSON.parse(decoder.decode(bytes)) as unknown;
    if (!isObject(chunk) || chunk.format !== CHUNK_FORMAT) return undefined;
    if (chunk.first !== range.first || chunk.span !== range.span) return undefined;
    if (!Array.isArray(chunk.records)) return undefined;
    const records = new Map<number, ChunkRecord>();
    for (const entry of chunk.records as unknown[]) {
      if (!isObject(entry) || !isObject(entry.manifest)) return undefined;
      const { size, tag } = entry;
      if (!Number.isSafeInteger(size) || (tag !== undefined && typeof tag !== "string")) {
        return undefined;
      }
      const version = entry.manifest.version;
      if (typeof version !== "number" || !inRange(range, version) || records.has(version)) {
        return undefined;
      }
      // Throws corrupt_artifact for a record of another format, scope or version.
      const json = JSON.stringify(entry.manifest);
      const manifest = parseStoredManifest(json, manifestFormat, { scope, version });
      if (nameKey(manifest.name).key !== key) return undefined;
      records.set(version, {
        size: size as number,
        ...(tag === undefined ? {} : { tag }),
        manifest,
      });
    }
    return records;
  } catch {
    return undefined; // not UTF-8, not JSON, or a record that does not check: ignored whole
  }
}

/** The chunk's record of a listed object, when the chunk's says the same size and tag. */
export function recordOf(
  records: ChunkRecords,
  version: number,
  object: ObjectInfo,
): StoredManifest | undefined {
  const record = records.get(version);
  if (!record || record.size !== object.size || record.tag !== object.tag) return undefined;
  return record.manifest;
}

/**
 * A chunk object found under the chunks root, checked whole, with the scope its records name
 * (the key holds only the scope's digest, which must be theirs); undefined when it does not
 * check, or records nothing (readers never write an empty chunk).
 */
export function checkedChunk(
  bytes: Uint8Array,
  range: VersionRange,
  manifestFormat: string,
  scopeDigestOfKey: string,
  key: string,
): { scope: Scope; records: ChunkRecords } | undefined {
  try {
    const chunk = JSON.parse(decoder.decode(bytes)) as unknown;
    if (!isObject(chunk) || !Array.isArray(chunk.records)) return undefined;
    const first = chunk.records[0] as unknown;
    if (!isObject(first) || !isObject(first.manifest)) return undefined;
    const scope = first.manifest.scope as Scope;
    if (scopeDigest(scope) !== scopeDigestOfKey) return undefined;
    const records = decodeChunk(bytes, range, manifestFormat, scope, key);
    return records ? { scope, records } : undefined;
  } catch {
    return undefined; // a scope that is no scope, among others
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
