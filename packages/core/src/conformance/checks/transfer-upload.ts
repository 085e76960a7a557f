// Transfer laws for streaming uploads, run only when capabilities().transfer declares
// them (otherwise skipped with the reason): an upload equals a put of its bytes, and an
// upload that does not finish publishes nothing.

import fc from "fast-check";
import { isArtifactError } from "../../errors.js";
import { sha256Hex } from "../../scope.js";
import { TRANSFER_BLOCK_BYTES, type UploadSink } from "../../transfer.js";
import { freshScope, metadataArb, mimeTypeArb } from "../arbitraries.js";
import { check, type LawContext, skip } from "../check.js";
import { expectArtifactError, expectEqual, expectSameJson, expectTrue } from "../expect.js";
import { readAllVersions } from "../observe.js";
import { bytesArb, seededBytes } from "../payload.js";
import {
  concat,
  expectFails,
  expectNothingPublished,
  multiBlockSize,
  NAME,
  uploadChunks,
} from "./transfer-support.js";

/** An upload in random chunk sizes equals a put of the concatenation. */
async function uploadInChunksEqualsPut({ transfer: service, property }: LawContext) {
  await property(
    [fc.array(bytesArb(TRANSFER_BLOCK_BYTES + 1), { maxLength: 4 }), mimeTypeArb, metadataArb],
    async (chunks, mimeType, metadata) => {
      const scope = freshScope("upload-chunks");
      const whole = concat(chunks);
      const meta = await uploadChunks(service, scope, chunks, { mimeType, metadata });
      const put = await service.put(scope, "transfer/put.bin", whole, {
        mimeType,
        metadata,
      });
      expectEqual(meta.version, 1, "the upload's version");
      expectEqual(
        [meta.size, meta.sha256],
        [put.size, put.sha256],
        "size and sha256 of the upload",
      );
      expectEqual(meta.sha256, sha256Hex(whole), "the upload's sha256");
      expectEqual(meta.mimeType, mimeType, "the upload's mimeType");
      expectSameJson(meta.metadata, metadata, "the upload's metadata");
      const stored = await service.get(scope, NAME);
      expectEqual(stored.data, whole, "get of the uploaded version");
      expectEqual((await readAllVersions(service, scope, NAME)).length, 1, "one version listed");
    },
    { scale: 1 / 4 },
  );
  return undefined;
}

/** A multi-block upload in odd chunks round-trips through get. */
async function multiBlockUploadRoundTrips({ transfer: service }: LawContext) {
  const size = multiBlockSize(service);
  if (typeof size === "string") return skip(size);
  const data = seededBytes(size, 7);
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < size; at += 300_007) chunks.push(data.subarray(at, at + 300_007));
  const scope = freshScope("upload-blocks");
  const meta = await uploadChunks(service, scope, chunks);
  expectEqual([meta.size, meta.sha256], [size, sha256Hex(data)], "size and sha256");
  expectTrue(
    sha256Hex((await service.get(scope, NAME)).data) === meta.sha256,
    "get returns the uploaded bytes",
  );
  return undefined;
}

/** Abort publishes nothing, and the upload refuses writes after it. */
async function abortPublishesNothing({ transfer: service }: LawContext) {
  const scope = freshScope("abort");
  const empty = await service.openUpload(scope, NAME);
  await empty.abort();
  const upload = await service.openUpload(scope, NAME);
  await upload.write(seededBytes(5000));
  await upload.write(seededBytes(10));
  await upload.abort(new Error("changed my mind"));
  await expectNothingPublished(service, scope, "after abort");
  await expectFails(() => upload.write(new Uint8Array(1)), ["aborted"], "a write after abort");
  await expectFails(() => upload.finish(), ["aborted"], "finish after abort");
  await expectNothingPublished(service, scope, "after finish of an aborted upload");
  const meta = await service.put(scope, NAME, new Uint8Array(1));
  expectTrue(meta.version >= 1, "a put after an aborted upload succeeds");
  return undefined;
}

/** An upload cancelled by its signal or past its deadline publishes nothing. */
async function cancelledUploadPublishesNothing({ transfer: service }: LawContext) {
  const scope = freshScope("upload-signal");
  const controller = new AbortController();
  const upload = await service.openUpload(scope, NAME, { signal: controller.signal });
  await upload.write(seededBytes(1000));
  controller.abort(new Error("owner went away"));
  await expectFails(() => upload.finish(), ["aborted"], "finish after the signal aborted");
  await expectNothingPublished(service, scope, "after the signal aborted");
  const late = await service.openUpload(scope, NAME, { timeoutMs: 50 });
  // On a loaded machine the deadline may pass during this write already: then it is
  // the write that fails with timeout.
  await late.write(seededBytes(1000)).catch((error: unknown) => {
    if (!isArtifactError(error, "timeout")) throw error;
  });
  await new Promise((resolve) => setTimeout(resolve, 80));
  await expectFails(() => late.finish(), ["timeout"], "finish past the deadline");
  await expectNothingPublished(service, scope, "after the deadline passed");
  return undefined;
}

/** An upload over maxBytes is artifact_too_large and publishes nothing. */
async function uploadOverMaxBytesPublishesNothing({ transfer: service }: LawContext) {
  const scope = freshScope("max-bytes");
  const upload: UploadSink = await service.openUpload(scope, NAME, { maxBytes: 10 });
  await upload.write(new Uint8Array(6));
  await expectArtifactError(
    () => upload.write(new Uint8Array(5)),
    "artifact_too_large",
    "the write past maxBytes",
  );
  await expectFails(
    () => upload.finish(),
    ["artifact_too_large"],
    "finish after the bound was passed",
  );
  await expectNothingPublished(service, scope, "after artifact_too_large");
  const exact = await uploadChunks(service, scope, [new Uint8Array(4), new Uint8Array(6)], {
    maxBytes: 10,
  });
  expectEqual(exact.size, 10, "an upload of exactly maxBytes");
  return undefined;
}

/** Bad transfer options are invalid_argument; a missing artifact is not_found. */
async function badTransferOptionsAreRefused({ transfer: service }: LawContext) {
  const scope = freshScope("transfer-validation");
  const bad: [string, () => Promise<unknown>][] = [
    ["maxBytes 0", () => service.openUpload(scope, NAME, { maxBytes: 0 })],
    ["an unknown upload option", () => service.openUpload(scope, NAME, { chunk: 1 } as never)],
    ["a name with ..", () => service.openUpload(scope, "a/../b")],
    [
      "a negative range offset",
      () => service.openDownload(scope, NAME, { range: { offset: -1, length: 1 } }),
    ],
    [
      "a fractional range length",
      () => service.openDownload(scope, NAME, { range: { offset: 0, length: 0.5 } }),
    ],
    [
      "an unknown range key",
      () =>
        service.openDownload(scope, NAME, {
          range: { offset: 0, length: 1, end: 2 } as never,
        }),
    ],
  ];
  for (const [what, call] of bad) await expectArtifactError(call, "invalid_argument", what);
  await expectArtifactError(
    () => service.openDownload(scope, NAME),
    "not_found",
    "a download of nothing",
  );
  const upload = await service.openUpload(scope, NAME);
  await expectArtifactError(
    () => upload.write("text" as never),
    "invalid_argument",
    "a chunk that is not bytes",
  );
  await upload.abort();
  await expectNothingPublished(service, scope, "after invalid calls");
  return undefined;
}
export const uploadLaws = [
  check(
    "transfer",
    "an upload in random chunk sizes equals a put of the concatenation",
    uploadInChunksEqualsPut,
    { needs: ["streamingUpload"] },
  ),
  check(
    "transfer",
    "a multi-block upload in odd chunks round-trips through get",
    multiBlockUploadRoundTrips,
    { needs: ["streamingUpload"] },
  ),
  check(
    "transfer",
    "abort publishes nothing, and the upload refuses writes after it",
    abortPublishesNothing,
    { needs: ["streamingUpload"] },
  ),
  check(
    "transfer",
    "an upload cancelled by its signal or past its deadline publishes nothing",
    cancelledUploadPublishesNothing,
    { needs: ["streamingUpload"] },
  ),
  check(
    "transfer",
    "an upload over maxBytes is artifact_too_large and publishes nothing",
    uploadOverMaxBytesPublishesNothing,
    { needs: ["streamingUpload"] },
  ),
  check(
    "transfer",
    "bad transfer options are invalid_argument; a missing artifact is not_found",
    badTransferOptionsAreRefused,
    { needs: ["streamingUpload", "streamingDownload"] },
  ),
];
