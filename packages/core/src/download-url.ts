import { invalidArgument, invalidServiceReply, unsupportedTransfer } from "./errors.js";
import type { ArtifactService, Capabilities, RequestOptions, Scope } from "./types.js";
import {
  validateName,
  validateOptionKeys,
  validatePositiveInteger,
  validateScope,
} from "./validate.js";

// The optional `createDownloadUrl` capability: a URL of the backend's own (a presigned
// URL, for instance) through which anyone holding it downloads one exact version, without
// the service in the path of the bytes. An adapter offers it only where such a URL answers
// a plain GET, with no header and no credential, with exactly that version's bytes: where
// the stored object also holds a manifest (the object-store layouts of s3 and gcs do), a
// presigned URL of the raw object would serve other bytes, and such an adapter does not
// offer the capability at all.

/** What `createDownloadUrl` takes beside the scope and the name. */
export interface DownloadUrlOptions extends RequestOptions {
  /** The exact version: a URL never follows "latest" to another version's bytes. */
  version: number;
  /** 1 ..`capabilities().downloadUrls.maxExpiresInSeconds`. */
  expiresInSeconds: number;
}

export interface DownloadUrl {
  /** An absolute `https:` or `http:` URL; a bearer capability, to be handled like a secret. */
  url: string;
  version: number;
  /** Milliseconds since the epoch; past it the backend refuses the URL. */
  expiresAt: number;
}

/**
 * Implemented beside ArtifactService, and declared in `capabilities().downloadUrls`. Until
 * `expiresAt`, a GET of `url` answers exactly the version's bytes (nothing before or after
 * them, none of the store's own records); after it, and once any part of the URL is
 * altered, the backend refuses it. A version that does not exist is not_found.
 */
export interface ArtifactDownloadUrls {
  createDownloadUrl(scope: Scope, name: string, options: DownloadUrlOptions): Promise<DownloadUrl>;
}

/** True when the service implements createDownloadUrl and declares it in its capabilities. */
export function hasDownloadUrls(
  service: ArtifactService,
): service is ArtifactService & ArtifactDownloadUrls {
  const candidate = service as Partial<ArtifactDownloadUrls>;
  return (
    typeof candidate.createDownloadUrl === "function" &&
    service.capabilities().downloadUrls !== undefined
  );
}

export interface DownloadUrlRequest {
  scope: Scope;
  name: string;
  version: number;
  expiresInSeconds: number;
  options: RequestOptions;
}

/**
 * Checks a createDownloadUrl call against the adapter's capabilities: a valid scope and
 * name, an exact version, and an expiry within the declared bound (invalid_argument, with
 * the bound in the message); unsupported_transfer when the adapter declares no bound.
 */
export function validateDownloadUrlRequest(
  capabilities: Capabilities,
  scope: unknown,
  name: unknown,
  options: unknown,
): DownloadUrlRequest {
  const declared = capabilities.downloadUrls;
  if (declared === undefined) {
    throw unsupportedTransfer("this store does not make download URLs of its own");
  }
  const given = validateOptionKeys(options, ["version", "expiresInSeconds", "timeoutMs", "signal"]);
  const version = validatePositiveInteger(given.version, "version");
  const expiresInSeconds = validatePositiveInteger(given.expiresInSeconds, "expiresInSeconds");
  if (expiresInSeconds > declared.maxExpiresInSeconds) {
    throw invalidArgument(
      "expiresInSeconds",
      `must be at most ${declared.maxExpiresInSeconds} (capabilities().downloadUrls.maxExpiresInSeconds)`,
    );
  }
  const request: RequestOptions = {};
  if (given.timeoutMs !== undefined) request.timeoutMs = given.timeoutMs as number;
  if (given.signal !== undefined) request.signal = given.signal as AbortSignal;
  return {
    scope: validateScope(scope),
    name: validateName(name),
    version,
    expiresInSeconds,
    options: request,
  };
}

/**
 * A wrapped adapter's URL, checked before it is handed on: an absolute http(s) URL, for the
 * version asked for, expiring no later than asked (`now` in milliseconds, when the request
 * was made). Anything else is invalid_service_reply.
 */
export function checkDownloadUrlReply(
  reply: unknown,
  request: Pick<DownloadUrlRequest, "version" | "expiresInSeconds">,
  now: number,
): DownloadUrl {
  const candidate = (typeof reply === "object" && reply !== null ? reply : {}) as Partial<
    Record<keyof DownloadUrl, unknown>
  >;
  const { url, version, expiresAt } = candidate;
  if (typeof url !== "string" || !isHttpUrl(url)) {
    throw invalidServiceReply("the download URL is not an absolute http(s) URL");
  }
  if (version !== request.version) {
    throw invalidServiceReply("the download URL is for another version than was asked");
  }
  if (
    typeof expiresAt !== "number" ||
    !Number.isSafeInteger(expiresAt) ||
    expiresAt > now + request.expiresInSeconds * 1000 + CLOCK_SLACK_MS
  ) {
    throw invalidServiceReply("the download URL expires later than was asked");
  }
  return { url, version, expiresAt };
}

/** An adapter computes its expiry from its own reading of the clock, a moment later. */
const CLOCK_SLACK_MS = 60_000;

function isHttpUrl(text: string): boolean {
  try {
    const { protocol } = new URL(text);
    return protocol === "https:" || protocol === "http:";
  } catch {
    return false;
  }
}
