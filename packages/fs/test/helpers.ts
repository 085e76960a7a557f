import { mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ArtifactErrorCode, isArtifactError } from "@artifact-kit/core";
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
  const file = await readFile(paths.reservation);
  const header = /^AKV2 ([0-9]{10}) ([0-9]{10})\n/.exec(file.subarray(0, 27).toString("latin1"));
  if (!header) throw new Error(`${paths.reservation} is no version file`);
  const recordEnd = 27 + Number(header[1]);
  const payloadOffset = Number(header[2]);
  const record = file.subarray(27, recordEnd);
  const size = (JSON.parse(record.toString("utf8")) as { size: number }).size;
  // `<v>.m` and `<v>.r` are one file: each gets a file of its own.
  await rm(paths.metadata);
  await rm(paths.reservation);
  await writeFile(paths.data, file.subarray(payloadOffset, payloadOffset + size));
  await writeFile(paths.reservation, file.subarray(payloadOffset + size));
  await writeFile(paths.metadata, record);
}

/** Where a version file's payload starts (its header's second field). */
export async function payloadOffsetOf(versionFilePath: string): Promise<number> {
  const header = (await readFile(versionFilePath)).subarray(0, 27).toString("latin1");
  const match = /^AKV2 [0-9]{10} ([0-9]{10})\n$/.exec(header);
  if (!match) throw new Error(`${versionFilePath} is no version file`);
  return Number(match[1]);
}

/** A version file's parts: the record's bytes, and all that follows its head. */
async function versionFileParts(path: string): Promise<{ record: Buffer; rest: Buffer }> {
  const file = await readFile(path);
  const header = /^AKV2 ([0-9]{10}) ([0-9]{10})\n$/.exec(file.subarray(0, 27).toString("latin1"));
  if (!header) throw new Error(`${path} is no version file`);
  return {
    record: file.subarray(27, 27 + Number(header[1])),
    rest: file.subarray(Number(header[2])),
  };
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
  const offset = 27 + bytes.byteLength;
  const header = `AKV2 ${String(bytes.byteLength).padStart(10, "0")} ${String(offset).padStart(10, "0")}\n`;
  await writeFile(path, Buffer.concat([Buffer.from(header, "latin1"), bytes, rest]));
}
