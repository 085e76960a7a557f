import { isArtifactError } from "../../errors.js";
import { freshScope } from "../arbitraries.js";
import { check, type LawContext, skip } from "../check.js";
import { expectArtifactError, expectEqual, expectTrue, fail } from "../expect.js";
import { readAllVersions } from "../observe.js";
import { seededBytes } from "../payload.js";
import {
  B,
  concat,
  multiBlockSize,
  NAME,
  readToEnd,
  type Transferring,
} from "./transfer-support.js";

// A stream's calls after it ended, and what a stream is pinned to (issue 31, fourth round).
// An upload publishes once: a second finish() and a write() after it never publish and never
// claim to have taken bytes. A download answers its end again however often it is asked, and
// serves the version it opened with: never a newer latest, never another version for one
// that is gone.

/** Empty writes are no end; a second finish() and a write() after finish() publish and take nothing. */
async function uploadEndsOnce({ transfer: service }: LawContext) {
  const scope = freshScope("upload-ends");
  const upload = await service.openUpload(scope, NAME);
  // Empty writes first, between and last are chunks of no bytes, never the end of the data.
  for (const chunk of [[], [1, 2], [], [3], []]) await upload.write(Uint8Array.from(chunk));
  const meta = await upload.finish();
  try {
    const again = await upload.finish();
    expectEqual(
      again.version,
      meta.version,
      "a second finish() that resolves: the version it published",
    );
  } catch (error) {
    expectTrue(
      isArtifactError(error),
      `a second finish() failed with a non-ArtifactError: ${String(error)}`,
    );
  }
  try {
    await upload.write(Uint8Array.of(4));
    fail("a write() after finish() resolved: it claims to have taken bytes no version will hold");
  } catch (error) {
    expectTrue(
      isArtifactError(error),
      `a write() after finish() failed with a non-ArtifactError: ${String(error)}`,
    );
  }
  await upload.abort();
  const versions = await readAllVersions(service, scope, NAME);
  expectEqual(
    versions.map((v) => v.version),
    [meta.version],
    "after a second finish, a late write and abort: the versions",
  );
  expectEqual([...(await service.get(scope, NAME)).data], [1, 2, 3], "the published bytes");
}

/** A download answers its end again on every later read, whole or ranged, and after cancel. */
async function downloadEndsOnce({ transfer: service }: LawContext) {
  const scope = freshScope("download-ends");
  const data = seededBytes(3 * 1024 + 7, 5);
  await service.put(scope, NAME, data);
  const ranged = service.capabilities().transfer?.byteRanges === true;
  const cases: [string, Parameters<Transferring["openDownload"]>[2]][] = [["whole", {}]];
  if (ranged) cases.push(["a range", { range: { offset: 100, length: 1000 } }]);
  for (const [what, options] of cases) {
    const source = await service.openDownload(scope, NAME, options);
    const bytes = await readToEnd(source);
    expectEqual(bytes.byteLength, source.length, `${what}: the bytes read`);
    for (let i = 0; i < 3; i++) {
      expectEqual(await source.read(), undefined, `${what}: read() ${i + 1} time(s) after the end`);
    }
    await source.cancel();
    let after: Uint8Array | undefined;
    try {
      after = await source.read();
    } catch (error) {
      expectTrue(
        isArtifactError(error),
        `${what}: read() after the end and cancel(): ${String(error)}`,
      );
    }
    expectEqual(after, undefined, `${what}: read() after the end and cancel()`);
  }
}

/** A download serves the version it opened with; a version that is gone is not_found. */
async function downloadIsPinned({ transfer: service }: LawContext) {
  const size = multiBlockSize(service);
  if (typeof size === "string") return skip(`a download spanning blocks: ${size}`);
  const scope = freshScope("download-pinned");
  // Two pieces are enough: the second is read after the newer put.
  const first = seededBytes(Math.min(size, B + 64), 21);
  const second = seededBytes(first.byteLength, 22);
  await service.put(scope, NAME, first);
  // Latest, opened before a newer version is put and read after it: the version it opened.
  const source = await service.openDownload(scope, NAME);
  const head = (await source.read()) ?? new Uint8Array();
  const v2 = await service.put(scope, NAME, second);
  expectEqual(
    concat([head, await readToEnd(source)]),
    first,
    "a download of latest with a newer version put between its pieces",
  );
  expectEqual(source.meta.version, 1, "that download's record");
  const opened = await service.openDownload(scope, NAME);
  await service.put(scope, NAME, first);
  expectEqual(
    await readToEnd(opened),
    second,
    "a download of latest opened before a newer put, read after it",
  );
  // A pinned version that is gone, or never was, is not_found: never another version's bytes.
  await service.delete(scope, NAME, 1);
  const ranged = service.capabilities().transfer?.byteRanges === true;
  for (const version of [1, v2.version + 5]) {
    await expectArtifactError(
      () => service.openDownload(scope, NAME, { version }).then(readToEnd),
      "not_found",
      `a download of version ${version} (deleted or never put)`,
    );
    if (ranged) {
      await expectArtifactError(
        () =>
          service
            .openDownload(scope, NAME, { version, range: { offset: 1, length: B } })
            .then(readToEnd),
        "not_found",
        `a ranged download of version ${version} (deleted or never put)`,
      );
    }
  }
  expectEqual(
    await readToEnd(await service.openDownload(scope, NAME, { version: v2.version })),
    second,
    "a download of the version left",
  );
  return undefined;
}

export const streamEndLaws = [
  check(
    "transfer",
    "an upload ends at finish() only, and once: empty writes first, between and last are not its end; a second finish() and a write() after finish() publish nothing and take nothing",
    uploadEndsOnce,
    { needs: ["streamingUpload"] },
  ),
  check(
    "transfer",
    "a download read to its end answers the end on every later read (whole and ranged), also after cancel()",
    downloadEndsOnce,
    { needs: ["streamingDownload"] },
  ),
  check(
    "transfer",
    "a download serves the version it opened with while newer versions are put; one of a deleted or never-put version is not_found, whole or ranged",
    downloadIsPinned,
    { needs: ["streamingDownload"] },
  ),
];
