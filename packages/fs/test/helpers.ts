import { mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type ArtifactErrorCode,
  type ArtifactMeta,
  type DownloadOptions,
  isArtifactError,
  type Scope,
} from "@artifact-kit/core";
import { FsArtifactService, type FsArtifactServiceOptions } from "../src/index.js";

/** A fresh, empty directory under the OS temp dir (its real path) and a way to remove it. */
export async function tempRoot(
  label = "fs",
): Promise<{ root: string; cleanup: () => Promise<void> }> {
  const root = await realpath(await mkdtemp(join(tmpdir(), `artifact-kit-${label}-`)));
  return { root, cleanup: () => rm(root, { recursive: true, force: true }) };
}

/** A service on a fresh temp root, with cleanup that closes it and removes the root. */
export async function tempService(
  options: Omit<FsArtifactServiceOptions, "root"> = {},
  label?: string,
): Promise<{ service: FsArtifactService; root: string; cleanup: () => Promise<void> }> {
  const temp = await tempRoot(label);
  const service = await FsArtifactService.open({ ...options, root: temp.root });
  return {
    service,
    root: temp.root,
    cleanup: async () => {
      await service.close();
      await temp.cleanup();
    },
  };
}

/** The ArtifactError code a call fails with, or "ok"; anything but an ArtifactError is rethrown. */
export async function codeOf(promise: Promise<unknown>): Promise<ArtifactErrorCode | "ok"> {
  try {
    await promise;
    return "ok";
  } catch (error) {
    if (isArtifactError(error)) return error.code;
    throw error;
  }
}

/** Bytes of a version file's header line: `AKV2 <10 digits> <10 digits>\n`. */
const HEADER_BYTES = 27;

/** A version file's parts: its record's bytes, where its payload starts, and all from there. */
async function versionFileParts(
  path: string,
): Promise<{ record: Buffer; payloadOffset: number; rest: Buffer }> {
  const file = await readFile(path);
  const header = /^AKV2 ([0-9]{10}) ([0-9]{10})\n$/.exec(
    file.subarray(0, HEADER_BYTES).toString("latin1"),
  );
  if (!header) throw new Error(`${path} is no version file`);
  const payloadOffset = Number(header[2]);
  return {
    record: file.subarray(HEADER_BYTES, HEADER_BYTES + Number(header[1])),
    payloadOffset,
    rest: file.subarray(payloadOffset),
  };
}

/**
 * Rewrites one published version as a store written before version files holds it: the
 * record alone in `<v>.m`, the payload in `<v>.d`, the block digests (of a version of more
 * than one block) in `<v>.r`. For tests of stores written by earlier releases.
 */
export async function toLegacyLayout(paths: {
  reservation: string;
  metadata: string;
  data: string;
}): Promise<void> {
  const { record, rest } = await versionFileParts(paths.reservation);
  const size = (JSON.parse(record.toString("utf8")) as { size: number }).size;
  // `<v>.m` and `<v>.r` are one file: each gets a file of its own.
  await rm(paths.metadata);
  await rm(paths.reservation);
  await writeFile(paths.data, rest.subarray(0, size));
  await writeFile(paths.reservation, rest.subarray(size));
  await writeFile(paths.metadata, record);
}

/** Where a version file's payload starts (its header's second field). */
export async function payloadOffsetOf(versionFilePath: string): Promise<number> {
  return (await versionFileParts(versionFilePath)).payloadOffset;
}

/** The record a version file holds, as text. */
export async function versionRecordText(path: string): Promise<string> {
  return (await versionFileParts(path)).record.toString("utf8");
}

/**
 * Rewrites the record of a version file in place (the same file, under all its names) with
 * `record`'s bytes, its header made to fit; the payload and the digests after it unchanged.
 */
export async function rewriteVersionRecord(path: string, record: string | Buffer): Promise<void> {
  const { rest } = await versionFileParts(path);
  const bytes = Buffer.from(record);
  const offset = HEADER_BYTES + bytes.byteLength;
  const header = `AKV2 ${String(bytes.byteLength).padStart(10, "0")} ${String(offset).padStart(10, "0")}\n`;
  await writeFile(path, Buffer.concat([Buffer.from(header, "latin1"), bytes, rest]));
}

/** A whole download through `openDownload`, and the version it served. */
export async function downloadAll(
  service: FsArtifactService,
  scope: Scope,
  name: string,
  options: DownloadOptions = {},
): Promise<{ meta: ArtifactMeta; bytes: Buffer }> {
  const source = await service.openDownload(scope, name, options);
  const chunks: Uint8Array[] = [];
  for (let chunk = await source.read(); chunk; chunk = await source.read()) chunks.push(chunk);
  return { meta: source.meta, bytes: Buffer.concat(chunks) };
}
