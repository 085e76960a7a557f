import {
  type ArtifactError,
  asArtifactError,
  type Capabilities,
  type Deadline,
  defineCapabilities,
  invalidArgument,
  notFound,
  validateOptionKeys,
  validatePositiveInteger,
  validateText,
} from "@artifact-kit/core";

/** The bounds every object-store adapter takes; each is reported by `capabilities()`. */
export interface ObjectStoreBounds {
  /** Most versions the legacy `list` returns before result_limit_exceeded (default 1,000). */
  legacyListLimit?: number;
  /** Requests in flight at once per service instance (default 16). */
  maxConcurrency?: number;
  /**
   * How long a put without a `timeoutMs` of its own keeps trying for a free version while
   * other writers take them, in milliseconds (default 60,000); then `overloaded`. A put with
   * a `timeoutMs` keeps trying until that deadline instead (then `timeout`).
   */
  maxContentionWaitMs?: number;
}

/** The defaults of ObjectStoreBounds. */
export const OBJECT_STORE_DEFAULTS: Readonly<Required<ObjectStoreBounds>> = Object.freeze({
  legacyListLimit: 1_000,
  maxConcurrency: 16,
  maxContentionWaitMs: 60_000,
});

/**
 * An adapter's options checked for unknown keys (the bounds of `defaults` and `otherKeys`),
 * and its bounds: `defaults`, with each one the options name (a positive integer, else
 * invalid_argument).
 */
export function resolveOptions<T extends Record<string, number>>(
  options: unknown,
  defaults: Readonly<T>,
  otherKeys: readonly string[],
  label: string,
): { given: Record<string, unknown>; bounds: T } {
  const boundKeys = Object.keys(defaults);
  const given = validateOptionKeys(options, [...boundKeys, ...otherKeys], label);
  const bounds: Record<string, number> = { ...defaults };
  for (const key of boundKeys) {
    if (given[key] !== undefined) bounds[key] = validatePositiveInteger(given[key], key);
  }
  return { given, bounds: bounds as T };
}

/**
 * The bytes of a streamed read, with its failures as ArtifactErrors (see requestFailure):
 * not_found when `isAbsent` says the object is gone.
 */
export async function* guardedStream(
  deadline: Deadline,
  operation: string,
  key: string,
  isAbsent: (error: unknown) => boolean,
  open: () => AsyncIterable<Uint8Array> | Promise<AsyncIterable<Uint8Array>>,
): AsyncGenerator<Uint8Array> {
  try {
    yield* await open();
  } catch (error) {
    throw requestFailure(deadline, error, operation, isAbsent(error) ? `object ${key}` : undefined);
  }
}

/**
 * Whether `value` has the members of an SDK object a caller passes in, each of the given
 * `typeof`: duck-typed, since the SDK is a peer dependency that may be installed more than once
 * (an instance of another copy's class fails `instanceof`).
 */
export function looksLike<T>(
  value: unknown,
  members: Readonly<Record<string, "function" | "object" | "string">>,
): value is T {
  return (
    typeof value === "object" &&
    value !== null &&
    Object.entries(members).every(
      ([name, type]) => typeof (value as Record<string, unknown>)[name] === type,
    )
  );
}

/** Longest prefix: with it, the longest key still fits the clouds' 1,024-byte object names. */
export const MAX_PREFIX_BYTES = 256;

/** A configured key prefix: empty, or ending in "/"; invalid_argument when unusable. */
export function resolvePrefix(value: unknown): string {
  if (value === undefined || value === "") return "";
  const prefix = validateText(value, "prefix", MAX_PREFIX_BYTES - 1);
  if (/[\r\n]/.test(prefix)) throw invalidArgument("prefix", "contains CR or LF");
  return prefix.endsWith("/") ? prefix : `${prefix}/`;
}

/**
 * What an object-store adapter reports: durable, global quotas (every instance enforces the
 * same bounds on its own), streamed and ranged transfer.
 */
export function objectStoreCapabilities(
  config: Required<ObjectStoreBounds> & { maxPageLimit: number; maxArtifactBytes: number },
  moreBounds: Readonly<Record<string, number>> = {},
): Capabilities {
  const { maxPageLimit, legacyListLimit, maxArtifactBytes, maxConcurrency, maxContentionWaitMs } =
    config;
  return defineCapabilities({
    durability: "durable",
    maxPageLimit,
    legacyListLimit,
    quotas: {
      appliesTo: "global",
      bounds: { maxArtifactBytes, maxConcurrency, maxContentionWaitMs, ...moreBounds },
    },
    transfer: { streamingUpload: true, streamingDownload: true, byteRanges: true },
  });
}

/** The whole object's size from a Content-Range ("bytes 0-9/1234"), else the body's. */
export function objectSizeOf(contentRange: unknown, bodyBytes: number): number {
  const total = typeof contentRange === "string" ? contentRange.match(/\/(\d+)$/)?.[1] : undefined;
  return total === undefined ? bodyBytes : Number(total);
}

/**
 * The ArtifactError for a failed request: the deadline's own failure when it has passed,
 * not_found naming `absent` when the request found nothing, else `unavailable` (with the SDK
 * error as its cause).
 */
export function requestFailure(
  deadline: Deadline,
  error: unknown,
  operation: string,
  absent?: string,
): ArtifactError {
  return (
    deadline.failure() ??
    (absent === undefined ? asArtifactError(error, operation) : notFound(absent))
  );
}
