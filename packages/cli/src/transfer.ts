import { randomUUID } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { readFile, rename, stat, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { PassThrough, Readable, Transform, type Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import {
  type ArtifactMeta,
  type ArtifactService,
  checkArtifactSize,
  isArtifactError,
  type JsonObject,
  type Scope,
  type VersionSelector,
} from "@artifact-kit/core";
import { openDownload, openUpload } from "@artifact-kit/stream";
import { localFileError } from "./local-file.js";
import type { OutputTarget } from "./output-target.js";
import { PROGRESS_THRESHOLD_BYTES, type Progress, transferProgress } from "./progress.js";

// Files of at least PROGRESS_THRESHOLD_BYTES move through @artifact-kit/stream when the
// adapter declares native transfer (memory, fs and gcs do), so memory use stays one chunk
// whatever the size, and a progress bar shows. Smaller files, and every file on an adapter
// without native transfer, move as one buffer, bounded by the adapter's maxArtifactBytes.

interface PutFileOptions {
  mimeType?: string;
  metadata?: JsonObject;
  json: boolean;
}

interface TransferResult {
  meta: ArtifactMeta;
  /** True when the bytes went through streaming transfer. */
  streamed: boolean;
}

export async function putFile(
  service: ArtifactService,
  scope: Scope,
  name: string,
  path: string,
  options: PutFileOptions,
): Promise<TransferResult> {
  const size = await regularFileSize(path);
  // Before a byte moves: a file over the store's bound would otherwise stream up to the
  // bound before the store refuses it.
  refuseOverBound(service, size);
  const putOptions = {
    ...(options.mimeType === undefined ? {} : { mimeType: options.mimeType }),
    ...(options.metadata === undefined ? {} : { metadata: options.metadata }),
  };
  if (size >= PROGRESS_THRESHOLD_BYTES && service.capabilities().transfer?.streamingUpload) {
    const upload = openUpload(service, scope, name, putOptions);
    const progress = transferProgress(`put ${name}`, size, options.json);
    try {
      await pipeline(createReadStream(path), counting(progress), upload.toNodeWritable());
    } catch (error) {
      throw isArtifactError(error) ? error : localFileError("FILE", path, error);
    } finally {
      progress.stop();
    }
    return { meta: await upload.meta, streamed: true };
  }
  const data = await readFile(path).catch((error) => {
    throw localFileError("FILE", path, error);
  });
  return { meta: await service.put(scope, name, data, putOptions), streamed: false };
}

export async function getToTarget(
  service: ArtifactService,
  scope: Scope,
  name: string,
  version: VersionSelector,
  target: OutputTarget,
  options: { json: boolean },
): Promise<TransferResult> {
  if (target.kind === "replace") {
    return replaceFile(target.path, (sink) =>
      download(service, scope, name, version, sink, options.json),
    );
  }
  // Standard output or a device: no partial file and no rename, the bytes go as they come.
  // The stream download still verifies the digest at its end (a failure is exit 5).
  const sink: Sink =
    target.kind === "stdout"
      ? { writable: () => process.stdout, end: false, label: "standard output" }
      : { writable: () => createWriteStream(target.path, { flags: "w" }), label: target.path };
  return download(service, scope, name, version, sink, options.json);
}

/** Where downloaded bytes go: a stream made on demand, ended or not when they are done. */
interface Sink {
  writable: () => Writable;
  label: string;
  end?: boolean;
}

/**
 * Writes the file beside `path` and renames it over `path`: an interrupted or failed get
 * never leaves a partial file under the name asked for.
 */
async function replaceFile(
  path: string,
  write: (sink: Sink) => Promise<TransferResult>,
): Promise<TransferResult> {
  const partial = join(dirname(path), `.${basename(path)}.${randomUUID()}.partial`);
  try {
    const result = await write({
      writable: () => createWriteStream(partial, { flags: "wx", mode: 0o600 }),
      label: partial,
    });
    await rename(partial, path).catch((error) => {
      throw localFileError("output", path, error);
    });
    return result;
  } catch (error) {
    await unlink(partial).catch(() => {});
    throw error;
  }
}

async function download(
  service: ArtifactService,
  scope: Scope,
  name: string,
  version: VersionSelector,
  sink: Sink,
  json: boolean,
): Promise<TransferResult> {
  if (!service.capabilities().transfer?.streamingDownload) {
    const { data, ...meta } = await service.get(scope, name, { version });
    await writeAll(Readable.from([data]), sink);
    return { meta, streamed: false };
  }
  const stream = openDownload(service, scope, name, { version });
  let meta: ArtifactMeta;
  try {
    meta = await stream.meta;
  } catch (error) {
    await stream.cancel().catch(() => {});
    throw error;
  }
  const progress = transferProgress(`get ${name}`, meta.size, json);
  try {
    await writeAll(stream, sink, counting(progress));
  } finally {
    progress.stop();
  }
  return { meta, streamed: true };
}

async function writeAll(
  source: AsyncIterable<Uint8Array>,
  sink: Sink,
  through: Transform = new PassThrough(),
): Promise<void> {
  try {
    await pipeline(source, through, sink.writable(), { end: sink.end ?? true });
  } catch (error) {
    throw isArtifactError(error) ? error : localFileError("output", sink.label, error);
  }
}

/** Passes chunks through, advancing the bar by each. */
function counting(progress: Progress): Transform {
  return new Transform({
    transform(chunk: Uint8Array, _encoding, done) {
      progress.advance(chunk.byteLength);
      done(null, chunk);
    },
  });
}

async function regularFileSize(path: string): Promise<number> {
  const stats = await stat(path).catch((error) => {
    throw localFileError("FILE", path, error);
  });
  if (!stats.isFile()) throw localFileError("FILE", path, new Error("is not a regular file"));
  return stats.size;
}

/** Refuses a file over the store's maxArtifactBytes from its size alone. */
function refuseOverBound(service: ArtifactService, size: number): void {
  const bound = service.capabilities().quotas.bounds.maxArtifactBytes;
  if (bound !== undefined) checkArtifactSize(size, bound);
}
