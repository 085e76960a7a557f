import { type Scope, scopeDigest, sha256Hex } from "@artifact-kit/core";
import type { ObjectStoreDialect } from "./dialect.js";

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
 *   <prefix>s/<sha256 of scope>/k/<sha256 of name NUL key>           bindings ("name-and-key")
 *   <prefix>s/<sha256 of scope>/k/<name key>/<sha256 of key>         bindings ("per-name")
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
    return `${this.#scopeRoot(scope)}d/${key}/${pad(version)}`;
  }

  /** The binding of one caller idempotency key under one name; NUL occurs in neither. */
  keyBinding(scope: Scope, name: string, key: string, idempotencyKey: string): string {
    return this.#bindings === "name-and-key"
      ? `${this.#scopeRoot(scope)}k/${sha256Hex(`${name}\u0000${idempotencyKey}`)}`
      : `${this.#scopeRoot(scope)}k/${key}/${sha256Hex(idempotencyKey)}`;
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
    return [`${this.prefix}s/`, this.uploadsPrefix(), `${this.prefix}p/`];
  }

  #scopeRoot(scope: Scope): string {
    return `${this.prefix}s/${scopeDigest(scope)}/`;
  }
}
