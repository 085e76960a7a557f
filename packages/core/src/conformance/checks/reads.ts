import { isArtifactError } from "../../errors.js";
import { DEFAULT_MIME_TYPE } from "../../limits.js";
import type { ArtifactService, Scope } from "../../types.js";
import { freshScope } from "../arbitraries.js";
import { check, type LawContext, skip } from "../check.js";
import { declaresTransfer } from "../declared-transfer.js";
import { expectArtifactError, expectEqual, expectTrue, fail } from "../expect.js";
import { digestOf, readAllVersions } from "../observe.js";
import { seededBytes } from "../payload.js";
import { readToEnd } from "./transfer-support.js";

// What a read resolves, wherever the answer depends on the input (issue 31, fifth round):
// latest past a page of versions, latest while a delete races it, the type of data put
// without one, and data past the sizes at which a backend switches to multipart writes.

const NAME = "reads/doc";
const MiB = 1024 * 1024;

const downloads = (service: ArtifactService) =>
  declaresTransfer(service, "streamingDownload") ? service : undefined;

/** head, get and a download of latest all answer `version`. */
async function expectLatest(service: ArtifactService, scope: Scope, version: number, what: string) {
  expectEqual((await service.head(scope, NAME)).version, version, `${what}: head(latest)`);
  const got = await service.get(scope, NAME);
  expectEqual(got.version, version, `${what}: get(latest)`);
  expectEqual([...got.data], [version & 0xff], `${what}: get(latest)'s bytes`);
  const transfer = downloads(service);
  if (transfer === undefined) return;
  const source = await transfer.openDownload(scope, NAME);
  expectEqual(source.meta.version, version, `${what}: a download of latest`);
  await readToEnd(source);
}

/** latest is the highest live version however many pages of versions the name holds. */
async function latestPastAPage({ service }: LawContext) {
  const capabilities = service.capabilities();
  const page = capabilities.pagination.maxPageLimit;
  if (page > 200)
    return skip(`maxPageLimit = ${page} is too many versions to put; pass createBounded`);
  // Two more than a page, and one more again so that more than a page is left for delete("all").
  const count = page + 3;
  const { maxScopeArtifacts, maxVersionsPerName } = capabilities.quotas.bounds;
  for (const [bound, room] of Object.entries({ maxScopeArtifacts, maxVersionsPerName })) {
    if (room !== undefined && room < count)
      return skip(`${bound} = ${room} holds fewer than ${count} versions`);
  }
  const scope = freshScope("latest-past-a-page");
  for (let i = 1; i <= count; i++) await service.put(scope, NAME, Uint8Array.of(i & 0xff));
  await expectLatest(service, scope, count, `${count} versions, maxPageLimit ${page}`);
  await service.delete(scope, NAME, count);
  await expectLatest(service, scope, count - 1, "after the top was deleted by number");
  await service.delete(scope, NAME, "latest");
  await expectLatest(service, scope, count - 2, 'after delete("latest")');
  // delete("all") removes every page of them, not the page a bulk path listed first.
  await service.delete(scope, NAME, "all");
  const left = await readAllVersions(service, scope, NAME);
  expectEqual(
    left.map((meta) => meta.version),
    [],
    `after delete("all") of ${count - 2} versions, maxPageLimit ${page}: the versions left`,
  );
  await expectArtifactError(
    () => service.head(scope, NAME),
    "not_found",
    'head after delete("all")',
  );
  return undefined;
}

/** A read of latest racing a delete of latest answers the top or the one below it, never not_found. */
async function latestRacingADelete({ service }: LawContext) {
  const scope = freshScope("latest-racing-delete");
  // Each turn deletes the top and puts a new one: the live versions are the first and the top.
  const live: number[] = [];
  for (let i = 0; i < 2; i++) live.push((await service.put(scope, NAME, Uint8Array.of(i))).version);
  for (let turns = 0; turns < 12; turns++) {
    const [below, top] = live.slice(-2) as [number, number];
    const read = turns % 2 === 0 ? service.get(scope, NAME) : service.head(scope, NAME);
    for (let i = 0; i < turns >> 1; i++) await Promise.resolve();
    const deleted = service.delete(scope, NAME, "latest");
    const [outcome, deletion] = await Promise.allSettled([read, deleted]);
    if (deletion.status === "rejected") throw deletion.reason;
    if (outcome.status === "rejected") {
      const what = isArtifactError(outcome.reason) ? outcome.reason.code : String(outcome.reason);
      fail(
        `a read of latest racing delete("latest") (delete after ${turns >> 1} turns) failed with ${what}: version ${below} stayed live throughout`,
      );
    }
    expectTrue(
      outcome.value.version === top || outcome.value.version === below,
      `a read of latest racing delete("latest"): expected version ${top} or ${below}, got ${outcome.value.version}`,
    );
    live.pop();
    live.push((await service.put(scope, NAME, Uint8Array.of(turns & 0xff))).version);
  }
  return undefined;
}

const UNTYPED: readonly [string, Uint8Array][] = [
  ["JSON text", new TextEncoder().encode('{"a": [1, 2]}')],
  ["a JSON list", new TextEncoder().encode("[1]")],
  ["PNG magic", Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13)],
  ["PDF magic", new TextEncoder().encode("%PDF-1.7\n%\u00e2\u00e3")],
  ["HTML", new TextEncoder().encode("<!doctype html><p>hi</p>")],
  ["plain text", new TextEncoder().encode("hello\n")],
  ["GZIP magic", Uint8Array.of(0x1f, 0x8b, 8, 0, 0, 0, 0, 0)],
  ["no bytes", new Uint8Array(0)],
];

/** Data put or uploaded without a mimeType is application/octet-stream, whatever it looks like. */
async function untypedDataIsNotSniffed({ service }: LawContext) {
  const scope = freshScope("untyped");
  const uploads = declaresTransfer(service, "streamingUpload") ? service : undefined;
  for (const [what, data] of UNTYPED) {
    const name = `untyped/${what.replaceAll(" ", "-")}`;
    const put = await service.put(scope, name, data);
    expectEqual(put.mimeType, DEFAULT_MIME_TYPE, `${what} put without a mimeType: the reply`);
    const head = await service.head(scope, name);
    expectEqual(head.mimeType, DEFAULT_MIME_TYPE, `${what} put without a mimeType: head`);
    if (uploads === undefined) continue;
    const upload = await uploads.openUpload(scope, `${name}.up`);
    await upload.write(data.slice());
    const uploaded = await upload.finish();
    expectEqual(uploaded.mimeType, DEFAULT_MIME_TYPE, `${what} uploaded without a mimeType`);
  }
  return undefined;
}

/** Sizes just past the part sizes multipart writes switch at (5 MiB, 8 MiB). */
const LARGE_SIZES = [5 * MiB + 1, 8 * MiB + 3];

/** Data of several MiB, past every common multipart threshold, round-trips byte for byte. */
async function megabytesRoundTrip({ service }: LawContext) {
  const bounds = service.capabilities().quotas.bounds;
  const fits = (size: number) =>
    ["maxArtifactBytes", "maxScopeBytes", "maxTotalBytes"].every(
      (bound) => bounds[bound] === undefined || (bounds[bound] as number) >= size,
    );
  const sizes = LARGE_SIZES.filter(fits);
  if (sizes.length === 0) return skip("the declared bounds hold no artifact of 5 MiB");
  const scope = freshScope("megabytes");
  for (const [i, size] of sizes.entries()) {
    const data = seededBytes(size, 31 + i);
    const name = `large/${size}`;
    const meta = await service.put(scope, name, data);
    expectEqual(
      [meta.size, meta.sha256],
      [size, digestOf(data)],
      `a put of ${size} bytes: the reply`,
    );
    const read = await service.get(scope, name);
    expectTrue(
      read.data.byteLength === size && Buffer.compare(read.data, data) === 0,
      `a get of ${size} bytes: the bytes differ from those put (first difference at ${firstDifference(read.data, data)})`,
    );
    await service.delete(scope, name, "all");
  }
  return undefined;
}

function firstDifference(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.byteLength, b.byteLength);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return n;
}

export const readLaws = [
  check(
    "state",
    'latest is the highest live version when the name holds more than a page of versions (head, get, a download), after deletes by number and of latest too; delete("all") removes every page of them',
    latestPastAPage,
    { needs: ["bounded"] },
  ),
  check(
    "state",
    'a read of latest racing a delete("latest") answers the top or the version below it, never not_found while that one stays live',
    latestRacingADelete,
  ),
  check(
    "values",
    "data put or uploaded without a mimeType is application/octet-stream, whatever its bytes look like (JSON, PNG, PDF, HTML, text, none)",
    untypedDataIsNotSniffed,
  ),
  check(
    "laws",
    "data of several MiB (past 5 MiB and 8 MiB, where backends switch to multipart writes) round-trips byte for byte",
    megabytesRoundTrip,
  ),
];
