// Transfer laws for downloads and byte ranges, run only when capabilities().transfer
// declares them: streamed bytes equal whole ones, ranges equal slices, damage is detected.

import fc from "fast-check";
import { isArtifactError } from "../../errors.js";
import { hasTransfer } from "../../transfer.js";
import { freshScope } from "../arbitraries.js";
import { check, type LawContext, skip } from "../check.js";
import { expectArtifactError, expectEqual, expectSameJson, expectTrue, fail } from "../expect.js";
import { bytesArb, largestPut, seededBytes } from "../payload.js";
import {
  B,
  concat,
  download,
  multiBlockSize,
  NAME,
  readToEnd,
  type Transferring,
} from "./transfer-support.js";

/**
 * A download's record is the head of the version it serves, for an older version, one
 * written with a key, the latest and "latest", whole and ranged: an adapter that opens the
 * bytes of one version and the record of another (of the name's latest) is caught.
 */
async function expectDownloadRecords(service: Transferring): Promise<void> {
  const scope = freshScope("download-records");
  await service.put(scope, NAME, seededBytes(40, 1), {
    mimeType: "text/plain",
    metadata: { v: 1 },
  });
  await service.put(scope, NAME, seededBytes(20, 2), { metadata: { v: 2 }, idempotencyKey: "two" });
  await service.put(scope, NAME, seededBytes(30, 3), { mimeType: "image/png" });
  const ranged = service.capabilities().transfer?.byteRanges === true;
  for (const version of [1, 2, 3, "latest"] as const) {
    for (const range of ranged ? [undefined, { offset: 5, length: 10 }] : [undefined]) {
      const source = await service.openDownload(scope, NAME, { version, ...(range && { range }) });
      const what = `the record of a ${range ? "ranged " : ""}download of version ${version}`;
      expectSameJson(source.meta, await service.head(scope, NAME, { version }), what);
      await source.cancel();
    }
  }
}

/** A download concatenates to the get, within and across blocks. */
async function downloadEqualsGet({ transfer: service, property }: LawContext) {
  await expectDownloadRecords(service);
  await property(
    [bytesArb(largestPut(service.capabilities().quotas.bounds.maxArtifactBytes))],
    async (data) => {
      const scope = freshScope("download");
      await service.put(scope, NAME, data);
      const source = await service.openDownload(scope, NAME);
      expectEqual(
        [source.offset, source.length, source.meta.size],
        [0, data.byteLength, data.byteLength],
        "the whole range",
      );
      expectEqual(await readToEnd(source), data, "the downloaded bytes");
    },
    { scale: 1 / 4 },
  );
  const size = multiBlockSize(service);
  if (typeof size === "string") return skip(`the multi-block case: ${size}`);
  const scope = freshScope("download-blocks");
  const data = seededBytes(size, 3);
  await service.put(scope, NAME, data);
  await service.put(scope, NAME, data.subarray(0, 10));
  expectEqual(
    await download(service, scope, { version: 1 }),
    (await service.get(scope, NAME, { version: 1 })).data,
    "a multi-block download of version 1",
  );
  expectEqual(await download(service, scope), data.subarray(0, 10), 'a download of "latest"');
  return undefined;
}

/** A byte range equals the slice (empty tail, offset at size, length past the end). */
async function rangeEqualsSlice({ transfer: service, property }: LawContext) {
  await property(
    [
      bytesArb(largestPut(service.capabilities().quotas.bounds.maxArtifactBytes)).chain((data) =>
        fc.tuple(
          fc.constant(data),
          fc.nat({ max: data.byteLength }),
          fc.nat({ max: data.byteLength + 20 }),
        ),
      ),
    ],
    async ([data, offset, length]) => {
      const scope = freshScope("range");
      await service.put(scope, NAME, data);
      const source = await service.openDownload(scope, NAME, { range: { offset, length } });
      const slice = data.slice(offset, offset + length);
      expectEqual([source.offset, source.length], [offset, slice.byteLength], "the range served");
      expectEqual(
        await readToEnd(source),
        slice,
        `range ${offset}+${length} of ${data.byteLength} bytes`,
      );
      await expectArtifactError(
        () =>
          service.openDownload(scope, NAME, {
            range: { offset: data.byteLength + 1, length: 1 },
          }),
        "invalid_argument",
        "a range starting past the end",
      );
    },
    { scale: 1 / 4 },
  );
  const size = multiBlockSize(service);
  if (typeof size === "string") return skip(`the multi-block ranges: ${size}`);
  const scope = freshScope("range-blocks");
  const data = seededBytes(size, 5);
  await service.put(scope, NAME, data);
  const edges: [number, number][] = [
    [0, 0],
    [B - 3, 6],
    [B, B],
    [B - 1, B + 2],
    [2 * B, 1],
    [size - 1, 10],
    [size, 5],
    [3, size],
  ];
  for (const [offset, length] of edges) {
    const got = await download(service, scope, { range: { offset, length } });
    expectEqual(
      got,
      data.slice(offset, offset + length),
      `range ${offset}+${length} of ${size} bytes`,
    );
  }
  return undefined;
}

/**
 * A download whose version is deleted while it is read (before its first piece, or between
 * pieces) yields the whole bytes or fails not_found: the blocks it has not read yet being
 * gone is the delete, never damage (corrupt_artifact) nor other bytes.
 */
async function downloadMeetsDelete({ transfer: service }: LawContext) {
  const size = multiBlockSize(service);
  if (typeof size === "string") return skip(`a download spanning blocks: ${size}`);
  const data = seededBytes(size, 13);
  for (const piecesBefore of [0, 1]) {
    const what = `a download with its version deleted after ${piecesBefore} of its pieces`;
    const scope = freshScope("download-deleted");
    await service.put(scope, NAME, data);
    const source = await service.openDownload(scope, NAME);
    const pieces: Uint8Array[] = [];
    for (let i = 0; i < piecesBefore; i++) pieces.push((await source.read()) ?? new Uint8Array());
    await service.delete(scope, NAME, "all");
    try {
      pieces.push(await readToEnd(source));
    } catch (error) {
      if (isArtifactError(error, "not_found")) continue;
      fail(`${what}: expected the whole bytes or not_found, got ${String(error)}`);
    }
    expectEqual(concat(pieces), data, `${what}: the bytes it yielded`);
  }
  return undefined;
}

/** A cancelled download stops and leaves the artifact intact. */
async function cancelledDownloadLeavesArtifact({ transfer: service }: LawContext) {
  const size = multiBlockSize(service);
  if (typeof size === "string") return skip(size);
  const scope = freshScope("cancel");
  const data = seededBytes(size, 11);
  await service.put(scope, NAME, data);
  const source = await service.openDownload(scope, NAME);
  expectEqual(await source.read(), data.subarray(0, B), "the first block");
  await source.cancel();
  expectEqual(await source.read(), undefined, "a read after cancel");
  expectEqual(
    (await service.get(scope, NAME)).data,
    data,
    "the artifact after a cancelled download",
  );
  return undefined;
}

/** A corrupted block fails a full download and every range touching it (corrupt_artifact). */
async function corruptedBlockIsDetected({ transfer: service, corrupt }: LawContext) {
  const size = multiBlockSize(service);
  if (typeof size === "string") return skip(size);
  const scope = freshScope("corrupt");
  const data = seededBytes(size, 13);
  const meta = await service.put(scope, NAME, data);
  await corrupt(meta, B + 10);
  await expectArtifactError(
    () => download(service, scope),
    "corrupt_artifact",
    "a full download of a corrupted artifact",
  );
  await expectArtifactError(
    () => download(service, scope, { range: { offset: B + 5, length: 10 } }),
    "corrupt_artifact",
    "a range inside the corrupted block",
  );
  await expectArtifactError(
    () => download(service, scope, { range: { offset: B - 2, length: 4 } }),
    "corrupt_artifact",
    "a range that ends in the corrupted block",
  );
  expectEqual(
    await download(service, scope, { range: { offset: 0, length: 100 } }),
    data.slice(0, 100),
    "a range of an intact block",
  );
  expectEqual(
    await download(service, scope, { range: { offset: 2 * B, length: 100 } }),
    data.slice(2 * B, 2 * B + 100),
    "a range past the corrupted block",
  );
  return undefined;
}
/** What capabilities().transfer declares is implemented. */
async function declaredTransferIsImplemented({ service }: LawContext) {
  const declared = service.capabilities().transfer;
  if (!declared) return skip("capabilities().transfer is absent: no native transfer");
  const any = declared.streamingUpload || declared.streamingDownload || declared.byteRanges;
  expectTrue(!any || hasTransfer(service), "declared transfer needs openUpload and openDownload");
  return undefined;
}

export const downloadLaws = [
  check(
    "transfer",
    "what capabilities().transfer declares is implemented",
    declaredTransferIsImplemented,
  ),
  check(
    "transfer",
    "a download concatenates to the get, within and across blocks, and its record is the head of the version it serves",
    downloadEqualsGet,
    { needs: ["streamingDownload"] },
  ),
  check(
    "transfer",
    "a byte range equals the slice (empty tail, offset at size, length past the end)",
    rangeEqualsSlice,
    { needs: ["byteRanges"] },
  ),
  check(
    "transfer",
    "a download whose version is deleted before or between its pieces yields the whole bytes or fails not_found, never corrupt_artifact",
    downloadMeetsDelete,
    { needs: ["streamingDownload"] },
  ),
  check(
    "transfer",
    "a cancelled download stops and leaves the artifact intact",
    cancelledDownloadLeavesArtifact,
    { needs: ["streamingDownload"] },
  ),
  check(
    "transfer",
    "a corrupted block fails a full download and every range touching it (corrupt_artifact)",
    corruptedBlockIsDetected,
    { needs: ["streamingDownload", "byteRanges", "corrupt"] },
  ),
];
