import { randomUUID } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { readFile, rename, stat, unlink, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import {
  ArtifactError,
  type ArtifactMeta,
  type ArtifactService,
  isArtifactError,
  type JsonObject,
  type Scope,
  type VersionSelector,
} from "@artifact-kit/core";
import { openDownload, openUpload } from "@artifact-kit/stream";
import { localFileError } from "./local-file.js";
import { PROGRESS_THRESHOLD_BYTES, type Progress, transferProgress } from "./progress.js";

// Files of at least PROGRESS_THRESHOLD_BYTES move through @artifact-kit/stream when the
// adapter declares native transfer (memory, fs and gcs do), so memory use stays one chunk
// whatever the size, and a progress bar shows. Smaller files, and every file on an adapter
// without native transfer, move as one buffer, bounded by the adapter's maxArtifactBytes.

export interface PutFileOptions {
  mimeType?: string;
  metadata?: JsonObject;
  json: boolean;
}

export interface TransferResult {
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
  refuseOverBound(service, size);
  const data = await readFile(path).catch((error) => {
    throw localFileError("FILE", path, error);
  });
  return { meta: await service.put(scope, name, data, putOptions), streamed: false };
}

export async function getToFile(
  service: ArtifactService,
  scope: Scope,
  name: string,
  version: VersionSelector,
  path: string,
  options: { json: boolean },
): Promise<TransferResult> {
  // Written beside the target and renamed over it: an interrupted or failed get never
  // leaves a partial file under the name asked for.
  const partial = join(dirname(path), `.${basename(path)}.${randomUUID()}.partial`);
  try {
    const result = service.capabilities().transfer?.streamingDownload
      ? await streamToFile(service, scope, name, version, partial, options.json)
      : await bufferToFile(service, scope, name, version, partial);
    await rename(partial, path).catch((error) => {
      throw localFileError("output", path, error);
    });
    return result;
  } catch (error) {
    await unlink(partial).catch(() => {});
    throw error;
  }
}

async function streamToFile(
  service: ArtifactService,
  scope: Scope,
  name: string,
  version: VersionSelector,
  partial: string,
  json: boolean,
): Promise<TransferResult> {
  const download = openDownload(service, scope, name, { version });
  let meta: ArtifactMeta;
  try {
    meta = await download.meta;
  } catch (error) {
    await download.cancel().catch(() => {});
    throw error;
  }
  const file = createWriteStream(partial, { flags: "wx", mode: 0o600 });
  const progress = transferProgress(`get ${name}`, meta.size, json);
  try {
    await pipeline(download, counting(progress), file);
  } catch (error) {
    throw isArtifactError(error) ? error : localFileError("output", partial, error);
  } finally {
    progress.stop();
  }
  return { meta, streamed: true };
}

async function bufferToFile(
  service: ArtifactService,
  scope: Scope,
  name: string,
  version: VersionSelector,
  partial: string,
): Promise<TransferResult> {
  const { data, ...meta } = await service.get(scope, name, { version });
  await writeFile(partial, data, { flag: "wx", mode: 0o600 }).catch((error) => {
    throw localFileError("output", partial, error);
  });
  return { meta, streamed: false };
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

/** Without streaming, a file is read whole: refuse one over the bound before reading it. */
function refuseOverBound(service: ArtifactService, size: number): void {
  const bound = service.capabilities().quotas.bounds.maxArtifactBytes;
  if (bound !== undefined && size > bound) {
    throw new ArtifactError(
      "artifact_too_large",
      `the file is ${size} bytes, over maxArtifactBytes ${bound}`,
      { detail: { limit: "max_artifact_bytes", bound, size } },
    );
  }
}
