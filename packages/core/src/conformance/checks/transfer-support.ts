import { type ArtifactErrorCode, isArtifactError } from "../../errors.js";
import {
  type ArtifactTransfer,
  type DownloadOptions,
  type DownloadSource,
  TRANSFER_BLOCK_BYTES,
} from "../../transfer.js";
import type { ArtifactService, Scope } from "../../types.js";
import { expectArtifactError, expectEqual, expectTrue, fail } from "../expect.js";
import { readAllVersions } from "../observe.js";

// What the transfer laws share: an upload that lends its chunks, a download read to its end
// piece by piece, and the block geometry the multi-block laws cross.

export type Transferring = ArtifactService & ArtifactTransfer;

export const NAME = "transfer/data.bin";
export const B = TRANSFER_BLOCK_BYTES;
/** Two and a half blocks: every multi-block law crosses two block boundaries and a short tail. */
const MULTI_BLOCK_BYTES = 2 * B + B / 2;

export const concat = (chunks: readonly Uint8Array[]): Uint8Array => {
  const whole = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0));
  let at = 0;
  for (const chunk of chunks) {
    whole.set(chunk, at);
    at += chunk.byteLength;
  }
  return whole;
};

export async function uploadChunks(
  service: Transferring,
  scope: Scope,
  chunks: readonly Uint8Array[],
  options?: Parameters<Transferring["openUpload"]>[2],
) {
  const upload = await service.openUpload(scope, NAME, options);
  for (const chunk of chunks) {
    // A caller may reuse its buffer once the write has resolved: scribble over it then.
    const lent = new Uint8Array(chunk);
    await upload.write(lent);
    lent.fill(0xa5);
  }
  return upload.finish();
}

/** Reads a source to its end; every piece must be at most one block. */
export async function readToEnd(source: DownloadSource): Promise<Uint8Array> {
  const pieces: Uint8Array[] = [];
  for (;;) {
    const piece = await source.read();
    if (piece === undefined) break;
    expectTrue(
      piece.byteLength <= B,
      `a download piece of ${piece.byteLength} bytes exceeds one block`,
    );
    pieces.push(piece);
  }
  return concat(pieces);
}

export async function download(service: Transferring, scope: Scope, options?: DownloadOptions) {
  return readToEnd(await service.openDownload(scope, NAME, options));
}

export async function expectNothingPublished(service: ArtifactService, scope: Scope, what: string) {
  expectEqual(await readAllVersions(service, scope, NAME), [], `${what}: no version is visible`);
  await expectArtifactError(() => service.get(scope, NAME), "not_found", `${what}: get`);
}

/** Requires `action` to fail with `code` (an upload's later calls fail with what failed it). */
export async function expectFails(
  action: () => Promise<unknown>,
  codes: readonly ArtifactErrorCode[],
  what: string,
) {
  try {
    await action();
  } catch (error) {
    if (codes.some((code) => isArtifactError(error, code))) return;
    fail(`${what}: expected ${codes.join(" or ")}, got ${String(error)}`);
  }
  fail(`${what}: expected ${codes.join(" or ")}, but it succeeded`);
}

/** The largest multi-block artifact this service accepts, up to MULTI_BLOCK_BYTES. */
export function multiBlockSize(service: ArtifactService): number | string {
  const bound = service.capabilities().quotas.bounds.maxArtifactBytes ?? MULTI_BLOCK_BYTES;
  const size = Math.min(bound, MULTI_BLOCK_BYTES);
  return size > B ? size : `maxArtifactBytes = ${bound} holds no more than one block`;
}
