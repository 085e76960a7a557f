import { Deadline } from "./deadline.js";
import { invalidArgument } from "./errors.js";
import {
  type ParsedContent,
  type ParsedGet,
  type ParsedRequest,
  PUT_OPTION_KEYS,
  parseContentOptions,
  parseGet,
} from "./request.js";
import type { ArtifactMeta, ArtifactService, GetOptions, PutOptions, Scope } from "./types.js";
import {
  validateName,
  validateOptionKeys,
  validatePositiveInteger,
  validateScope,
} from "./validate.js";

// The adapter side of streaming transfer. An adapter that serves it natively implements
// `ArtifactTransfer` beside `ArtifactService` and declares which parts in
// `capabilities().transfer`; `@artifact-kit/stream` turns these primitives into WHATWG and
// Node streams. Nothing here buffers a whole artifact.

export * from "./transfer/blocks.js";
export * from "./transfer/upload-sink.js";
export * from "./transfer/verified-source.js";

export interface UploadOptions extends PutOptions {
  /** Most bytes this upload may carry; the adapter's maxArtifactBytes when absent or larger. */
  maxBytes?: number;
}

/** `length` bytes from `offset` of the data; fewer when the data ends first. */
export interface ByteRange {
  offset: number;
  length: number;
}

export interface DownloadOptions extends GetOptions {
  /** Absent: the whole artifact. An offset past the end is invalid_argument. */
  range?: ByteRange;
}

/** One upload in progress. At most one `write` may be pending at a time. */
export interface UploadSink {
  /** Resolves when the adapter has taken the chunk: that is the writer's credit for the next. */
  write(chunk: Uint8Array): Promise<void>;
  /** Publishes everything written as one new version, or fails and publishes nothing. */
  finish(): Promise<ArtifactMeta>;
  /** Discards everything written; publishes nothing. No effect once `finish` has begun. */
  abort(reason?: unknown): Promise<void>;
}

/** One download in progress: verified pieces of at most TRANSFER_BLOCK_BYTES, read on demand. */
export interface DownloadSource {
  readonly meta: ArtifactMeta;
  /** The bytes served: [offset, offset + length) of the data, already clamped to its end. */
  readonly offset: number;
  readonly length: number;
  /** The next verified piece, or undefined at the end. */
  read(): Promise<Uint8Array | undefined>;
  /** Stops reading and releases what the download holds. */
  cancel(): Promise<void>;
}

/** Native streaming transfer, implemented beside ArtifactService and declared in capabilities(). */
export interface ArtifactTransfer {
  openUpload(scope: Scope, name: string, options?: UploadOptions): Promise<UploadSink>;
  openDownload(scope: Scope, name: string, options?: DownloadOptions): Promise<DownloadSource>;
}

/** True when the service implements the transfer primitives (what it declares is separate). */
export function hasTransfer(
  service: ArtifactService,
): service is ArtifactService & ArtifactTransfer {
  const candidate = service as Partial<ArtifactTransfer>;
  return typeof candidate.openUpload === "function" && typeof candidate.openDownload === "function";
}

export interface ParsedUpload extends ParsedRequest, ParsedContent {
  name: string;
  /** The effective byte bound and which bound it is, for the artifact_too_large error. */
  maxBytes: number;
  maxBytesBound: "maxBytes" | "maxArtifactBytes";
}

export function parseUpload(
  scope: unknown,
  name: unknown,
  options: unknown,
  maxArtifactBytes: number,
): ParsedUpload {
  const opts = validateOptionKeys(options, [...PUT_OPTION_KEYS, "maxBytes"]);
  const asked =
    opts.maxBytes === undefined ? undefined : validatePositiveInteger(opts.maxBytes, "maxBytes");
  const own = asked !== undefined && asked < maxArtifactBytes;
  return {
    scope: validateScope(scope),
    name: validateName(name),
    ...parseContentOptions(opts),
    maxBytes: own ? asked : maxArtifactBytes,
    maxBytesBound: own ? "maxBytes" : "maxArtifactBytes",
    deadline: Deadline.start(opts),
  };
}

export interface ParsedDownload extends ParsedGet {
  range: ByteRange | undefined;
}

export function parseDownload(scope: unknown, name: unknown, options: unknown): ParsedDownload {
  const { range, ...getOptions } = validateOptionKeys(options, [
    "timeoutMs",
    "signal",
    "version",
    "range",
  ]);
  const request = parseGet(scope, name, getOptions);
  return { ...request, range: range === undefined ? undefined : validateRange(range) };
}

function validateRange(value: unknown): ByteRange {
  const { offset, length } = validateOptionKeys(value, ["offset", "length"], "range");
  return {
    offset: validateByteCount(offset, "range.offset"),
    length: validateByteCount(length, "range.length"),
  };
}

function validateByteCount(value: unknown, field: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw invalidArgument(field, "must be a non-negative integer");
  }
  return value;
}

/** The range a download serves of `size` bytes: the whole, or the request clamped to the end. */
export function resolveRange(range: ByteRange | undefined, size: number): ByteRange {
  if (range === undefined) return { offset: 0, length: size };
  if (range.offset > size) {
    throw invalidArgument("range.offset", `is past the end of the ${size}-byte artifact`);
  }
  return { offset: range.offset, length: Math.min(range.length, size - range.offset) };
}
