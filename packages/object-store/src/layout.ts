import { type Scope, scopeDigest, sha256Hex } from "@artifact-kit/core";
import type { ObjectStoreDialect } from "./dialect.js";
import { isChunkRange, type VersionRange } from "./version-ranges.js";

/** Digits of Number.MAX_SAFE_INTEGER: zero-padding to it makes string order numeric order. */
const VERSION_DIGITS = 16;

function pad(value: number): string {
  return String(value).padStart(VERSION_DIGITS, "0");
}

function parsePadded(text: string): number | undefined {
  if (!/^[0-9]{16}$/.test(text)) return undefined;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : undefined;
}

/**
 * Where objects live under the configured prefix. No raw user string is ever a segment:
 *
 *   <prefix>s/<sha256 of scope>/n/<name key>/<version, zero-padded>  published artifacts
 *   <prefix>s/<sha256 of scope>/a/<name key>/<MAX_SAFE - version>    allocations, permanent
 *   <prefix>s/<sha256 of scope>/d/<name key>/<version, zero-padded>  deletion markers ("markers")
 *   <prefix>s/<sha256 of scope>/e/<name key>/<version, zero-padded>  deletion seals ("markers")
 *   <prefix>s/<sha256 of scope>/k/<sha256 of name NUL key>           bindings ("name-and-key")
 *   <prefix>s/<sha256 of scope>/k/<name key>/<sha256 of key>         bindings ("per-name")
 *   <prefix>c/<sha256 of scope>                                      scope markers, permanent
 *   <prefix>r/<sha256 of scope>/<name key>/<first, padded>-<span>    version-record chunks
 *   <prefix>u/<random upload id>[...]                                streamed uploads' staging
 *   <prefix>p/<random id>                                            an adapter's probe, removed
 *
 * Allocation numbers are inverted so that the first listed is the high-water mark.
 */
export class ObjectLayout {
  readonly prefix: string;
  readonly #bindings: ObjectStoreDialect["bindings"];

  constructor(prefix: string, bindings: ObjectStoreDialect["bindings"]) {
    this.prefix = prefix;
    this.#bindings = bindings;
  }

  /** Parent of one key prefix per name with a published version. */
  namesPrefix(scope: Scope): string {
    return `${this.#scopeRoot(scope)}n/`;
  }

  versionsPrefix(scope: Scope, key: string): string {
    return `${this.namesPrefix(scope)}${key}/`;
  }

  versionObject(scope: Scope, key: string, version: number): string {
    return this.versionsPrefix(scope, key) + pad(version);
  }

  /** The version a published object holds, from its key. */
  versionOf(objectKey: string, versionsPrefix: string): number | undefined {
    if (!objectKey.startsWith(versionsPrefix)) return undefined;
    return parsePadded(objectKey.slice(versionsPrefix.length));
  }

  allocationsPrefix(scope: Scope, key: string): string {
    return `${this.#scopeRoot(scope)}a/${key}/`;
  }

  allocationObject(scope: Scope, key: string, version: number): string {
    return this.allocationsPrefix(scope, key) + pad(Number.MAX_SAFE_INTEGER - version);
  }

  allocatedVersionOf(objectKey: string, allocationsPrefix: string): number | undefined {
    if (!objectKey.startsWith(allocationsPrefix)) return undefined;
    const inverted = parsePadded(objectKey.slice(allocationsPrefix.length));
    return inverted === undefined ? undefined : Number.MAX_SAFE_INTEGER - inverted;
  }

  /** The permanent marker that a version was deleted (the "markers" dialect). */
  deletionMarker(scope: Scope, key: string, version: number): string {
    return this.deletionMarkersPrefix(scope, key) + pad(version);
  }

  deletionMarkersPrefix(scope: Scope, key: string): string {
    return `${this.#scopeRoot(scope)}d/${key}/`;
  }

  /** Which delete deleted a version, written after its object's delete (the "markers" dialect). */
  deletionSeal(scope: Scope, key: string, version: number): string {
    return `${this.#scopeRoot(scope)}e/${key}/${pad(version)}`;
  }

  /** The binding of one caller idempotency key under one name; NUL occurs in neither. */
  keyBinding(scope: Scope, name: string, key: string, idempotencyKey: string): string {
    return this.#bindings === "name-and-key"
      ? `${this.#scopeRoot(scope)}k/${sha256Hex(`${name}\u0000${idempotencyKey}`)}`
      : `${this.#scopeRoot(scope)}k/${key}/${sha256Hex(idempotencyKey)}`;
  }

  /** Parent of every version-record chunk (see record-chunks.ts): what repair checks. */
  recordChunksRoot(): string {
    return `${this.prefix}r/`;
  }

  recordChunksPrefix(scope: Scope, key: string): string {
    return `${this.recordChunksRoot()}${scopeDigest(scope)}/${key}/`;
  }

  /** The chunk of versions [first, first + span); keys sort by first version, then span. */
  recordChunk(scope: Scope, key: string, range: VersionRange): string {
    return `${this.recordChunksPrefix(scope, key)}${pad(range.first)}-${range.span}`;
  }

  /** A listing key that sorts before every chunk whose range starts at `first` or later. */
  recordChunksBefore(scope: Scope, key: string, first: number): string {
    return `${this.recordChunksPrefix(scope, key)}${pad(first - 1)}~`;
  }

  /** The range of a chunk's key under `chunksPrefix`; undefined when it is no chunk's key. */
  recordChunkRange(objectKey: string, chunksPrefix: string): VersionRange | undefined {
    if (!objectKey.startsWith(chunksPrefix)) return undefined;
    const match = /^([0-9]{16})-([0-9]+)$/.exec(objectKey.slice(chunksPrefix.length));
    const first = parsePadded(match?.[1] ?? "");
    const span = Number(match?.[2]);
    if (first === undefined || !Number.isSafeInteger(span)) return undefined;
    const range = { first, span };
    return isChunkRange(range) ? range : undefined;
  }

  /** Parent of the scope markers: one object per scope ever written into, never removed. */
  scopeMarkersPrefix(): string {
    return `${this.prefix}c/`;
  }

  scopeMarker(scope: Scope): string {
    return this.scopeMarkersPrefix() + scopeDigest(scope);
  }

  /** Whether a key listed under `scopeMarkersPrefix()` has a scope marker's form. */
  isScopeMarker(objectKey: string): boolean {
    const markers = this.scopeMarkersPrefix();
    return objectKey.startsWith(markers) && /^[0-9a-f]{64}$/.test(objectKey.slice(markers.length));
  }

  uploadsPrefix(): string {
    return `${this.prefix}u/`;
  }

  uploadObject(uploadId: string): string {
    return `${this.uploadsPrefix()}${uploadId}`;
  }

  probeObject(probeId: string): string {
    return `${this.prefix}p/${probeId}`;
  }

  /** Every folder the protocol (or an adapter's probe) writes under the prefix. */
  ownedPrefixes(): string[] {
    return [`${this.prefix}s/`, this.uploadsPrefix(), `${this.prefix}p/`, this.recordChunksRoot()];
  }

  #scopeRoot(scope: Scope): string {
    return `${this.prefix}s/${scopeDigest(scope)}/`;
  }
}
