import {
  ArtifactError,
  type ArtifactMeta,
  type ArtifactService,
  type ArtifactTransfer,
  type Deadline,
  type DownloadOptions,
  type DownloadSource,
  isArtifactError,
  type Scope,
  TRANSFER_BLOCK_BYTES,
  type UploadOptions,
  validateOptionKeys,
  validatePositiveInteger,
} from "@artifact-kit/core";
import {
  contentOptions,
  type DataDigest,
  type ParsedUpload,
  parseDownload,
  parseUpload,
  resolveRange,
  uploadSink,
} from "@artifact-kit/core/adapter";

/** The explicit opt-in to carry a transfer through `put` / `get`, whole in memory. */
export interface BufferingOptions {
  /** Most bytes one transfer may hold in memory: the whole artifact is held. */
  maxBytes: number;
}

export function parseBuffering(value: unknown): BufferingOptions {
  const { maxBytes } = validateOptionKeys(value, ["maxBytes"], "buffering");
  return { maxBytes: validatePositiveInteger(maxBytes, "buffering.maxBytes") };
}

/**
 * Transfer over `put` / `get` for an adapter without native transfer, for callers who opted in
 * with a byte bound: an upload gathers its chunks (at most `maxBytes`, else
 * artifact_too_large) and publishes them with one put; a download reads the version's size
 * first, refuses one larger than `maxBytes` with artifact_too_large, then gets it whole (the
 * adapter checks it against its SHA-256) and serves it, or its range, one block at a time.
 */
export function bufferedTransfer(
  service: ArtifactService,
  buffering: BufferingOptions,
): ArtifactTransfer {
  return {
    openUpload: async (scope, name, options) =>
      bufferedUpload(service, buffering, scope, name, options),
    openDownload: (scope, name, options) =>
      bufferedDownload(service, buffering, scope, name, options),
  };
}

function bufferedUpload(
  service: ArtifactService,
  { maxBytes }: BufferingOptions,
  scope: Scope,
  name: string,
  options: UploadOptions | undefined,
) {
  // The adapter's own ceiling too, so that an upload it would refuse fails as it is written,
  // not only at the put.
  const ceiling = service.capabilities().quotas.bounds.maxArtifactBytes ?? maxBytes;
  const request = parseUpload(scope, name, options, Math.min(maxBytes, ceiling));
  // As every operation: a signal already aborted, or a deadline already passed, fails the
  // open itself (not only the writes and the finish that would follow).
  request.deadline.check();
  const chunks: Uint8Array[] = [];
  return uploadSink(request, {
    write: async (chunk) => {
      // The chunk is only lent: keep a copy.
      chunks.push(new Uint8Array(chunk));
    },
    publish: (digest, deadline) =>
      putGathered(service, request, chunks.splice(0), digest, deadline),
    discard: async () => {
      chunks.length = 0;
    },
  });
}

async function putGathered(
  service: ArtifactService,
  request: ParsedUpload,
  chunks: readonly Uint8Array[],
  digest: DataDigest,
  deadline: Deadline,
): Promise<ArtifactMeta> {
  deadline.check();
  // The adapter's put copies what it keeps, so a buffer of Node's pool is fine here.
  const meta = await service.put(request.scope, request.name, Buffer.concat(chunks, digest.size), {
    ...contentOptions(request),
    ...deadline.toRequestOptions(),
  });
  if (meta.sha256 !== digest.sha256 || meta.size !== digest.size) {
    throw new ArtifactError(
      "invalid_service_reply",
      "the adapter's put reported other bytes than were uploaded",
    );
  }
  return meta;
}

async function bufferedDownload(
  service: ArtifactService,
  { maxBytes }: BufferingOptions,
  scope: Scope,
  name: string,
  options: DownloadOptions | undefined,
): Promise<DownloadSource> {
  const request = parseDownload(scope, name, options);
  const { deadline } = request;
  for (;;) {
    // The size first, so that an artifact too large to hold is never loaded.
    const head = await service.head(request.scope, request.name, {
      version: request.version,
      ...deadline.toRequestOptions(),
    });
    if (head.size > maxBytes) {
      throw new ArtifactError(
        "artifact_too_large",
        `the artifact's ${head.size} bytes exceed the buffering bound of ${maxBytes}`,
        { detail: { limit: "max_bytes", bound: maxBytes } },
      );
    }
    const range = resolveRange(request.range, head.size);
    try {
      // The version head found, so that a newer "latest" cannot slip in between.
      const { data, ...meta } = await service.get(request.scope, request.name, {
        version: head.version,
        ...deadline.toRequestOptions(),
      });
      return new BufferedSource(meta, data, range.offset, range.length, deadline);
    } catch (error) {
      // The latest found was deleted before it could be read: "latest" now names an older
      // version (or none, which the next head says). Answering not_found would be false while
      // the name holds versions. Each round follows a delete that another caller made.
      if (request.version !== "latest" || !isArtifactError(error, "not_found")) throw error;
      deadline.check();
    }
  }
}

/** Serves [offset, offset + length) of bytes already whole in memory, one block at a time. */
class BufferedSource implements DownloadSource {
  readonly meta: ArtifactMeta;
  readonly offset: number;
  readonly length: number;
  #data: Uint8Array;
  #at: number;
  readonly #deadline: Deadline;

  constructor(
    meta: ArtifactMeta,
    data: Uint8Array,
    offset: number,
    length: number,
    deadline: Deadline,
  ) {
    this.meta = Object.freeze(meta);
    this.offset = offset;
    this.length = length;
    this.#data = data;
    this.#at = offset;
    this.#deadline = deadline;
  }

  async read(): Promise<Uint8Array | undefined> {
    const end = this.offset + this.length;
    if (this.#at >= end) return undefined;
    this.#deadline.check();
    const piece = this.#data.subarray(this.#at, Math.min(end, this.#at + TRANSFER_BLOCK_BYTES));
    this.#at += piece.byteLength;
    return piece;
  }

  async cancel(): Promise<void> {
    this.#data = new Uint8Array(0);
    this.#at = this.offset + this.length;
  }
}
