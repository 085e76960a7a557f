import fc from "fast-check";
import { type ArtifactErrorCode, isArtifactError } from "../../errors.js";
import { sha256Hex } from "../../scope.js";
import {
  type ArtifactTransfer,
  type DownloadOptions,
  type DownloadSource,
  hasTransfer,
  TRANSFER_BLOCK_BYTES,
  type UploadSink,
} from "../../transfer.js";
import type { ArtifactService, Scope, TransferCapabilities } from "../../types.js";
import { freshScope, metadataArb, mimeTypeArb } from "../arbitraries.js";
import { type CheckOutcome, type ConformanceCheck, propertyParameters, skipped } from "../check.js";
import { expectArtifactError, expectEqual, expectSameJson, expectTrue, fail } from "../expect.js";
import { readAllVersions } from "../observe.js";
import { type ArtifactServiceConformanceOptions, withSubject } from "../subject.js";

// Transfer laws, run only for what capabilities().transfer declares (otherwise skipped with
// the reason): streamed bytes equal whole ones, ranges equal slices, and an upload that does
// not finish publishes nothing.

type Transferring = ArtifactService & ArtifactTransfer;
type TransferPart = keyof TransferCapabilities;

const NAME = "transfer/data.bin";
const B = TRANSFER_BLOCK_BYTES;
/** Two and a half blocks: every multi-block law crosses two block boundaries and a short tail. */
const MULTI_BLOCK_BYTES = 2 * B + B / 2;

/** Deterministic bytes that differ from block to block (xorshift). */
function patterned(size: number, seed = 1): Uint8Array {
  const bytes = new Uint8Array(size);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    bytes[i] = x & 0xff;
  }
  return bytes;
}

const concat = (chunks: readonly Uint8Array[]): Uint8Array => {
  const whole = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0));
  let at = 0;
  for (const chunk of chunks) {
    whole.set(chunk, at);
    at += chunk.byteLength;
  }
  return whole;
};

async function uploadChunks(
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
async function readToEnd(source: DownloadSource): Promise<Uint8Array> {
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

async function download(service: Transferring, scope: Scope, options?: DownloadOptions) {
  return readToEnd(await service.openDownload(scope, NAME, options));
}

async function expectNothingPublished(service: ArtifactService, scope: Scope, what: string) {
  expectEqual(await readAllVersions(service, scope, NAME), [], `${what}: no version is visible`);
  await expectArtifactError(() => service.get(scope, NAME), "not_found", `${what}: get`);
}

/** Requires `action` to fail with `code` (an upload's later calls fail with what failed it). */
async function expectFails(
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

/** Runs `body` on a fresh subject when every part in `needs` is declared; else a skip. */
function transferCheck(
  options: ArtifactServiceConformanceOptions,
  name: string,
  needs: readonly TransferPart[],
  body: (service: Transferring) => Promise<CheckOutcome>,
): ConformanceCheck {
  return {
    name: `transfer: ${name}`,
    run: () =>
      withSubject(options.create, async ({ service }) => {
        const declared = service.capabilities().transfer;
        const missing = needs.filter((part) => !declared?.[part]);
        if (missing.length > 0) {
          return skipped(`capabilities().transfer does not declare ${missing.join(", ")}`);
        }
        if (!hasTransfer(service)) {
          return fail(
            "capabilities().transfer declares streaming, but openUpload / openDownload are missing",
          );
        }
        return body(service);
      }),
  };
}

/** The largest multi-block artifact this service accepts, up to MULTI_BLOCK_BYTES. */
function multiBlockSize(service: ArtifactService): number | string {
  const bound = service.capabilities().quotas.bounds.maxArtifactBytes ?? MULTI_BLOCK_BYTES;
  const size = Math.min(bound, MULTI_BLOCK_BYTES);
  return size > B ? size : `maxArtifactBytes = ${bound} holds no more than one block`;
}

/** A quarter of the kit's runs: each transfer run is several round trips to the store. */
function transferRuns<T>(options: ArtifactServiceConformanceOptions) {
  const params = propertyParameters<T>(options);
  return { ...params, numRuns: Math.max(1, Math.ceil((params.numRuns ?? 100) / 4)) };
}

export function transferChecks(options: ArtifactServiceConformanceOptions): ConformanceCheck[] {
  return [
    {
      name: "transfer: what capabilities().transfer declares is implemented",
      run: () =>
        withSubject(options.create, async ({ service }) => {
          const declared = service.capabilities().transfer;
          if (!declared) return skipped("capabilities().transfer is absent: no native transfer");
          const any = declared.streamingUpload || declared.streamingDownload || declared.byteRanges;
          expectTrue(
            !any || hasTransfer(service),
            "declared transfer needs openUpload and openDownload",
          );
          return undefined;
        }),
    },
    transferCheck(
      options,
      "an upload in random chunk sizes equals a put of the concatenation",
      ["streamingUpload"],
      async (service) => {
        await fc.assert(
          fc.asyncProperty(
            fc.array(fc.uint8Array({ maxLength: 700 }), { maxLength: 6 }),
            mimeTypeArb,
            metadataArb,
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
              expectEqual(
                (await readAllVersions(service, scope, NAME)).length,
                1,
                "one version listed",
              );
            },
          ),
          transferRuns(options),
        );
        return undefined;
      },
    ),
    transferCheck(
      options,
      "a multi-block upload in odd chunks round-trips through get",
      ["streamingUpload"],
      async (service) => {
        const size = multiBlockSize(service);
        if (typeof size === "string") return skipped(size);
        const data = patterned(size, 7);
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
      },
    ),
    transferCheck(
      options,
      "a download concatenates to the get, within and across blocks",
      ["streamingDownload"],
      async (service) => {
        await fc.assert(
          fc.asyncProperty(fc.uint8Array({ maxLength: 3000 }), async (data) => {
            const scope = freshScope("download");
            await service.put(scope, NAME, data);
            const source = await service.openDownload(scope, NAME);
            expectEqual(
              [source.offset, source.length, source.meta.size],
              [0, data.byteLength, data.byteLength],
              "the whole range",
            );
            expectEqual(await readToEnd(source), data, "the downloaded bytes");
          }),
          transferRuns(options),
        );
        const size = multiBlockSize(service);
        if (typeof size === "string") return skipped(`the multi-block case: ${size}`);
        const scope = freshScope("download-blocks");
        const data = patterned(size, 3);
        await service.put(scope, NAME, data);
        await service.put(scope, NAME, data.subarray(0, 10));
        expectEqual(
          await download(service, scope, { version: 1 }),
          (await service.get(scope, NAME, { version: 1 })).data,
          "a multi-block download of version 1",
        );
        expectEqual(await download(service, scope), data.subarray(0, 10), 'a download of "latest"');
        return undefined;
      },
    ),
    transferCheck(
      options,
      "a byte range equals the slice (empty tail, offset at size, length past the end)",
      ["byteRanges"],
      async (service) => {
        await fc.assert(
          fc.asyncProperty(
            fc
              .uint8Array({ maxLength: 2000 })
              .chain((data) =>
                fc.tuple(
                  fc.constant(data),
                  fc.nat({ max: data.byteLength }),
                  fc.nat({ max: data.byteLength + 20 }),
                ),
              ),
            async ([data, offset, length]) => {
              const scope = freshScope("range");
              await service.put(scope, NAME, data);
              const source = await service.openDownload(scope, NAME, { range: { offset, length } });
              const slice = data.slice(offset, offset + length);
              expectEqual(
                [source.offset, source.length],
                [offset, slice.byteLength],
                "the range served",
              );
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
          ),
          transferRuns(options),
        );
        const size = multiBlockSize(service);
        if (typeof size === "string") return skipped(`the multi-block ranges: ${size}`);
        const scope = freshScope("range-blocks");
        const data = patterned(size, 5);
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
      },
    ),
    transferCheck(
      options,
      "abort publishes nothing, and the upload refuses writes after it",
      ["streamingUpload"],
      async (service) => {
        const scope = freshScope("abort");
        const empty = await service.openUpload(scope, NAME);
        await empty.abort();
        const upload = await service.openUpload(scope, NAME);
        await upload.write(patterned(5000));
        await upload.write(patterned(10));
        await upload.abort(new Error("changed my mind"));
        await expectNothingPublished(service, scope, "after abort");
        await expectFails(
          () => upload.write(new Uint8Array(1)),
          ["aborted"],
          "a write after abort",
        );
        await expectFails(() => upload.finish(), ["aborted"], "finish after abort");
        await expectNothingPublished(service, scope, "after finish of an aborted upload");
        const meta = await service.put(scope, NAME, new Uint8Array(1));
        expectTrue(meta.version >= 1, "a put after an aborted upload succeeds");
        return undefined;
      },
    ),
    transferCheck(
      options,
      "an upload cancelled by its signal or past its deadline publishes nothing",
      ["streamingUpload"],
      async (service) => {
        const scope = freshScope("upload-signal");
        const controller = new AbortController();
        const upload = await service.openUpload(scope, NAME, { signal: controller.signal });
        await upload.write(patterned(1000));
        controller.abort(new Error("owner went away"));
        await expectFails(() => upload.finish(), ["aborted"], "finish after the signal aborted");
        await expectNothingPublished(service, scope, "after the signal aborted");
        const late = await service.openUpload(scope, NAME, { timeoutMs: 50 });
        // On a loaded machine the deadline may pass during this write already: then it is
        // the write that fails with timeout.
        await late.write(patterned(1000)).catch((error: unknown) => {
          if (!isArtifactError(error, "timeout")) throw error;
        });
        await new Promise((resolve) => setTimeout(resolve, 80));
        await expectFails(() => late.finish(), ["timeout"], "finish past the deadline");
        await expectNothingPublished(service, scope, "after the deadline passed");
        return undefined;
      },
    ),
    transferCheck(
      options,
      "an upload over maxBytes is artifact_too_large and publishes nothing",
      ["streamingUpload"],
      async (service) => {
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
      },
    ),
    transferCheck(
      options,
      "bad transfer options are invalid_argument; a missing artifact is not_found",
      ["streamingUpload", "streamingDownload"],
      async (service) => {
        const scope = freshScope("transfer-validation");
        const bad: [string, () => Promise<unknown>][] = [
          ["maxBytes 0", () => service.openUpload(scope, NAME, { maxBytes: 0 })],
          [
            "an unknown upload option",
            () => service.openUpload(scope, NAME, { chunk: 1 } as never),
          ],
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
      },
    ),
    transferCheck(
      options,
      "a cancelled download stops and leaves the artifact intact",
      ["streamingDownload"],
      async (service) => {
        const size = multiBlockSize(service);
        if (typeof size === "string") return skipped(size);
        const scope = freshScope("cancel");
        const data = patterned(size, 11);
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
      },
    ),
    transferCheck(
      options,
      "a corrupted block fails a full download and every range touching it (corrupt_artifact)",
      ["streamingDownload", "byteRanges"],
      async (service) => {
        if (!options.corruptData)
          return skipped("the subject gives no corruptData hook to damage stored bytes");
        const size = multiBlockSize(service);
        if (typeof size === "string") return skipped(size);
        const scope = freshScope("corrupt");
        const data = patterned(size, 13);
        const meta = await service.put(scope, NAME, data);
        await options.corruptData(service, meta, B + 10);
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
      },
    ),
  ];
}
