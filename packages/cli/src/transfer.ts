import { randomUUID } from "node:crypto";
import { createReadStream } from "node:fs";
import { open, readFile, rename, stat, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import {
  ArtifactError,
  type ArtifactMeta,
  type ArtifactService,
  hasTransfer,
  type JsonObject,
  type Scope,
  type VersionSelector,
} from "@artifact-kit/core";
import { localFileError } from "./local-file.js";
import { transferProgress } from "./progress.js";

// Files move through the adapter's native streaming transfer (core's ArtifactTransfer)
// when it declares one, so memory use stays one chunk whatever the size. Otherwise (gcs
// today) they move as one buffer, bounded by the adapter's maxArtifactBytes.

const CHUNK_BYTES = 1024 * 1024;

export interface PutFileOptions {
  mimeType?: string;
  metadata?: JsonObject;
  json: boolean;
}

export interface TransferResult {
  meta: ArtifactMeta;
  /** True when the bytes went through the adapter's streaming transfer. */
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
  const progress = transferProgress(`put ${name}`, size, options.json);
  try {
    if (hasTransfer(service) && service.capabilities().transfer?.streamingUpload) {
      const sink = await service.openUpload(scope, name, putOptions);
      try {
        for await (const chunk of readChunks(path)) {
          await sink.write(chunk);
          progress.advance(chunk.byteLength);
        }
        return { meta: await sink.finish(), streamed: true };
      } catch (error) {
        await sink.abort(error);
        throw error;
      }
    }
    refuseOverBound(service, size);
    const data = await readFile(path).catch((error) => {
      throw localFileError("FILE", path, error);
    });
    progress.advance(data.byteLength);
    return { meta: await service.put(scope, name, data, putOptions), streamed: false };
  } finally {
    progress.stop();
  }
}

export async function getToFile(
  service: ArtifactService,
  scope: Scope,
  name: string,
  version: VersionSelector,
  path: string,
  options: { json: boolean },
): Promise<TransferResult> {
  // Written beside the target and renamed over it: an interrupted get never leaves a
  // truncated file under the name asked for.
  const partial = join(dirname(path), `.${basename(path)}.${randomUUID()}.partial`);
  const file = await open(partial, "wx", 0o600).catch((error) => {
    throw localFileError("output", path, error);
  });
  let result: TransferResult | undefined;
  try {
    if (hasTransfer(service) && service.capabilities().transfer?.streamingDownload) {
      const source = await service.openDownload(scope, name, { version });
      const progress = transferProgress(`get ${name}`, source.length, options.json);
      try {
        for (let piece = await source.read(); piece; piece = await source.read()) {
          await file.write(piece);
          progress.advance(piece.byteLength);
        }
      } catch (error) {
        await source.cancel();
        throw error;
      } finally {
        progress.stop();
      }
      result = { meta: source.meta, streamed: true };
    } else {
      const { data, ...meta } = await service.get(scope, name, { version });
      await file.write(data);
      result = { meta, streamed: false };
    }
    await file.sync();
  } finally {
    await file.close();
    if (result === undefined) await unlink(partial).catch(() => {});
  }
  await rename(partial, path).catch(async (error) => {
    await unlink(partial).catch(() => {});
    throw localFileError("output", path, error);
  });
  return result;
}

async function regularFileSize(path: string): Promise<number> {
  const stats = await stat(path).catch((error) => {
    throw localFileError("FILE", path, error);
  });
  if (!stats.isFile()) throw localFileError("FILE", path, new Error("is not a regular file"));
  return stats.size;
}

async function* readChunks(path: string): AsyncGenerator<Uint8Array> {
  try {
    for await (const chunk of createReadStream(path, { highWaterMark: CHUNK_BYTES })) {
      yield chunk as Buffer;
    }
  } catch (error) {
    if (error instanceof ArtifactError) throw error;
    throw localFileError("FILE", path, error);
  }
}

/** Without streaming, a file is read whole: refuse one over the bound before reading it. */
function refuseOverBound(service: ArtifactService, size: number): void {
  const bound = service.capabilities().quotas.bounds.maxArtifactBytes;
  if (bound !== undefined && size > bound) {
    throw new ArtifactError(
      "artifact_too_large",
      `the file is ${size} bytes, over maxArtifactBytes ${bound}`,
      {
        detail: { limit: "max_artifact_bytes", bound, size },
      },
    );
  }
}
