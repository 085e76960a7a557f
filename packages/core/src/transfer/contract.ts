import type { ArtifactMeta, ArtifactService, GetOptions, PutOptions, Scope } from "../types.js";

// What an adapter implements to serve streaming transfer, and the options a caller passes.

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
