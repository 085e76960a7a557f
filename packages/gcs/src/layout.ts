import { type Scope, scopeDigest, sha256Hex } from "@artifact-kit/core";

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
 *   <prefix>s/<sha256 of scope>/k/<name key>/<sha256 of key>        idempotency keys, permanent
 *   <prefix>u/<random upload id>/<data | header | composed>        uploads in progress
 *
 * Allocation numbers are inverted so that the first listed is the high-water mark.
 */
export class ObjectLayout {
  readonly #prefix: string;

  constructor(prefix: string) {
    this.#prefix = prefix;
  }

  /** Parent of one prefix segment per name with a published version. */
  namesPrefix(scope: Scope): string {
    return `${this.#scopeRoot(scope)}n/`;
  }

  versionsPrefix(scope: Scope, key: string): string {
    return `${this.namesPrefix(scope)}${key}/`;
  }

  versionObject(scope: Scope, key: string, version: number): string {
    return this.versionsPrefix(scope, key) + pad(version);
  }

  /** The version a published object holds, from its object name. */
  versionOf(objectName: string, versionsPrefix: string): number | undefined {
    if (!objectName.startsWith(versionsPrefix)) return undefined;
    return parsePadded(objectName.slice(versionsPrefix.length));
  }

  allocationsPrefix(scope: Scope, key: string): string {
    return `${this.#scopeRoot(scope)}a/${key}/`;
  }

  allocationObject(scope: Scope, key: string, version: number): string {
    return this.allocationsPrefix(scope, key) + pad(Number.MAX_SAFE_INTEGER - version);
  }

  allocatedVersionOf(objectName: string, allocationsPrefix: string): number | undefined {
    if (!objectName.startsWith(allocationsPrefix)) return undefined;
    const inverted = parsePadded(objectName.slice(allocationsPrefix.length));
    return inverted === undefined ? undefined : Number.MAX_SAFE_INTEGER - inverted;
  }

  /** The binding of one caller's idempotency key to the version it published. */
  keyObject(scope: Scope, key: string, idempotencyKey: string): string {
    return `${this.#scopeRoot(scope)}k/${key}/${sha256Hex(idempotencyKey)}`;
  }

  /** Objects of one upload in progress (data, header, composed); removed when it ends. */
  uploadObject(uploadId: string, part: "data" | "header" | "composed"): string {
    return `${this.#prefix}u/${uploadId}/${part}`;
  }

  #scopeRoot(scope: Scope): string {
    return `${this.#prefix}s/${scopeDigest(scope)}/`;
  }
}
