import type { ArtifactError } from "../../errors.js";
import { isArtifactError } from "../../errors.js";
import { hasTransfer } from "../../transfer.js";
import type { ArtifactMeta, ArtifactService, PutOptions, Scope } from "../../types.js";
import { freshScope } from "../arbitraries.js";
import { check, type LawContext, skip } from "../check.js";
import { declaresTransfer } from "../declared-transfer.js";
import { expectArtifactError, expectEqual, expectTrue, fail } from "../expect.js";
import { readAllVersions } from "../observe.js";
import { seededBytes } from "../payload.js";
import { expectFails, NAME, uploadChunks } from "./transfer-support.js";

// Every write path under an idempotent retry (core's idempotency.ts decides the answers):
// a streamed upload, a retry at a full quota, the same payload spelled differently, keys at
// the length limit and keys that differ only by case or normalization. Artifacts live under
// transfer-support's NAME so the upload helpers apply.

const KEY = "retry-key";
const payload = (seed: number, size = 700) => seededBytes(size, seed);
const chunksOf = (data: Uint8Array) => [data.subarray(0, 300), data.subarray(300)];

async function versionsOf(service: ArtifactService, scope: Scope) {
  return (await readAllVersions(service, scope, NAME)).map((meta) => meta.version);
}

function expectSameVersion(retry: ArtifactMeta, first: ArtifactMeta, what: string) {
  for (const field of ["version", "size", "sha256", "mimeType", "createdAt"] as const) {
    expectEqual(retry[field], first[field], `${what}: ${field} of the bound version`);
  }
  expectEqual(retry.idempotencyKey, first.idempotencyKey, `${what}: idempotencyKey`);
}

/** A keyed streamed upload retried publishes once; put and upload share the key. */
async function uploadRetriesPublishOnce({ transfer }: LawContext) {
  const scope = freshScope("retry-upload");
  const data = payload(1);
  const options: PutOptions = { mimeType: "text/plain", metadata: { n: 1 }, idempotencyKey: KEY };
  const first = await uploadChunks(transfer, scope, chunksOf(data), options);
  expectEqual(first.idempotencyKey, KEY, "the upload's record: idempotencyKey");
  const again = await uploadChunks(transfer, scope, chunksOf(data), { ...options });
  expectSameVersion(again, first, "an upload retried with the same key and bytes");
  const asPut = await transfer.put(scope, NAME, data.slice(), { ...options });
  expectSameVersion(asPut, first, "a put under the key an upload bound");
  expectEqual(await versionsOf(transfer, scope), [first.version], "one version after the retries");
  await expectFails(
    () => uploadChunks(transfer, scope, chunksOf(payload(2)), options),
    ["invalid_argument"],
    "an upload with other bytes under the bound key",
  );
  for (const [what, other] of [
    ["metadata", { ...options, metadata: { n: 2 } }],
    ["mimeType", { ...options, mimeType: "text/csv" }],
  ] as const) {
    await expectFails(
      () => uploadChunks(transfer, scope, chunksOf(data), other),
      ["invalid_argument"],
      `an upload with the same bytes and another ${what} under the bound key`,
    );
  }
  const racing = await Promise.allSettled(
    Array.from({ length: 4 }, () => uploadChunks(transfer, scope, chunksOf(data), options)),
  );
  for (const outcome of racing) {
    if (outcome.status === "fulfilled") expectSameVersion(outcome.value, first, "a racing retry");
    else if (!isArtifactError(outcome.reason)) fail(`a racing retry failed: ${outcome.reason}`);
  }
  expectEqual(await versionsOf(transfer, scope), [first.version], "nothing more was published");
  await transfer.delete(scope, NAME, first.version);
  await expectFails(
    () => uploadChunks(transfer, scope, chunksOf(data), options),
    ["not_found"],
    "an upload retried after its version was deleted",
  );
  expectEqual(await versionsOf(transfer, scope), [], "the retry after delete published nothing");
}

const MAX_FILL = 600;

/** True when some declared bound stops puts of `size` into one name within MAX_FILL of them. */
function reachable(service: ArtifactService, size: number): boolean {
  const bounds = service.capabilities().quotas.bounds;
  const counts = [bounds.maxScopeArtifacts, bounds.maxTotalArtifacts, bounds.maxVersionsPerName];
  const bytes = [bounds.maxScopeBytes, bounds.maxTotalBytes];
  return (
    counts.some((bound) => bound !== undefined && bound < MAX_FILL) ||
    bytes.some((bound) => bound !== undefined && bound / size < MAX_FILL)
  );
}

/**
 * Fills one name to the brim: puts of `size`, then of half that, down to one byte, each until
 * the store refuses it for a quota or capacity. The last refusal, or undefined if none came.
 */
async function fillUntilRefused(service: ArtifactService, scope: Scope, size: number) {
  let refused: unknown;
  let puts = 0;
  for (let next = size; next >= 1 && puts < MAX_FILL; next = Math.floor(next / 2)) {
    for (; puts < MAX_FILL; puts++) {
      try {
        await service.put(scope, NAME, new Uint8Array(next));
      } catch (error) {
        if (
          !isArtifactError(error, "quota_exceeded") &&
          !isArtifactError(error, "capacity_reached")
        ) {
          throw error;
        }
        refused = error;
        break;
      }
    }
  }
  return refused;
}

/** At a full quota, a retry of a published key still answers with its version. */
async function retryAtAFullQuota({ service }: LawContext) {
  const scope = freshScope("retry-full");
  const data = payload(3, 64);
  const options: PutOptions = { metadata: { full: true }, idempotencyKey: KEY };
  const declared = service.capabilities();
  const size = Math.min(declared.quotas.bounds.maxArtifactBytes ?? 1024, 1024);
  if (!reachable(service, size)) {
    return skip(`no declared bound is reached within ${MAX_FILL} puts of ${size} bytes`);
  }
  const first = await service.put(scope, NAME, data, options);
  const refused = await fillUntilRefused(service, scope, size);
  if (!refused) return skip("no declared bound is reached within 600 puts in one name");
  const what = `once a put is refused (${(refused as ArtifactError).code})`;
  const before = await versionsOf(service, scope);
  expectSameVersion(
    await service.put(scope, NAME, data.slice(), options),
    first,
    `${what}: a put retry`,
  );
  if (declaresTransfer(service, "streamingUpload")) {
    const upload = await uploadChunks(service, scope, [data.slice()], options);
    expectSameVersion(upload, first, `${what}: an upload retry`);
  }
  const other = await service.put(scope, NAME, payload(4, 64), options).then(
    () => fail(`${what}: another payload under the key succeeded`),
    (error: unknown) => error,
  );
  expectTrue(
    isArtifactError(other, "invalid_argument"),
    `${what}: another payload under the key: expected invalid_argument (the key decides before the quota), got ${String(other)}`,
  );
  expectEqual(await versionsOf(service, scope), before, `${what}: the retries wrote nothing`);
  // Nor did they take room: what one delete frees, a put of the same size takes again. A
  // store that reserves room before it looks the key up, and keeps a retry's reservation,
  // fills up with room that nothing live holds. (A capacity refusal counts versions ever
  // allocated, which a delete does not give back: only a quota is checked so.)
  const freed = (await readAllVersions(service, scope, NAME)).find(
    (meta) => meta.version !== first.version,
  );
  if (isArtifactError(refused, "quota_exceeded") && freed !== undefined) {
    await service.delete(scope, NAME, freed.version);
    await service
      .put(scope, NAME, new Uint8Array(freed.size))
      .catch((error: unknown) =>
        fail(
          `${what}: after the retries, a put of the ${freed.size} bytes a delete freed: expected success, got ${String(error)}`,
        ),
      );
  }
  await service.delete(scope, NAME, first.version);
  await expectArtifactError(
    () => service.put(scope, NAME, data.slice(), options),
    "not_found",
    `${what}: a retry once its version is deleted`,
  );
  return undefined;
}

/** Equal payloads spelled differently (key order, defaults given or left out) are one payload. */
async function equalPayloadsSpelledDifferently({ service }: LawContext) {
  const scope = freshScope("retry-spelling");
  const data = payload(5);
  const metadata = { a: 1, b: { c: [1, 2], d: "x" }, "": null };
  const first = await service.put(scope, NAME, data, {
    mimeType: "application/octet-stream",
    metadata,
    idempotencyKey: KEY,
  });
  const spellings: [string, PutOptions][] = [
    ["keys in another order", { metadata: { "": null, b: { d: "x", c: [1, 2] }, a: 1 } }],
    ["1.0 for 1", { metadata: { a: 1.0, b: { c: [1, 2], d: "x" }, "": null } }],
    ["the default mimeType left out", { metadata: { b: { d: "x", c: [1, 2] }, "": null, a: 1 } }],
    // The deadline is the call's, not the payload's.
    [
      "another timeoutMs and a signal",
      { metadata, timeoutMs: 60_000, signal: new AbortController().signal },
    ],
  ];
  for (const [how, options] of spellings) {
    const retry = await service.put(scope, NAME, data.slice(), { ...options, idempotencyKey: KEY });
    expectSameVersion(retry, first, `a retry with ${how}`);
  }
  const zero = await service.put(scope, "zero", data.slice(), {
    metadata: { z: 0 },
    idempotencyKey: KEY,
  });
  const negativeZero = await service.put(scope, "zero", data.slice(), {
    metadata: { z: -0 },
    idempotencyKey: KEY,
  });
  expectSameVersion(negativeZero, zero, "a retry with -0 where the first put had 0");
  const empty = await service.put(scope, "empty", data.slice(), {
    metadata: {},
    idempotencyKey: KEY,
  });
  const none = await service.put(scope, "empty", data.slice(), { idempotencyKey: KEY });
  expectSameVersion(none, empty, "a retry without metadata where the first put had {}");
  const differing: [string, PutOptions][] = [
    ["an array in another order", { metadata: { ...metadata, b: { c: [2, 1], d: "x" } } }],
    ["a key more", { metadata: { ...metadata, e: null } }],
    ["a nested key less", { metadata: { ...metadata, b: { c: [1, 2] } } }],
    ["1 as a string", { metadata: { ...metadata, a: "1" } }],
  ];
  for (const [how, options] of differing) {
    await expectArtifactError(
      () => service.put(scope, NAME, data.slice(), { ...options, idempotencyKey: KEY }),
      "invalid_argument",
      `a retry with ${how}`,
    );
  }
  expectEqual(await versionsOf(service, scope), [first.version], "the retries wrote nothing");
}

/** Keys at the 256-byte limit work; keys differing only by case or normalization are distinct. */
async function longAndLookalikeKeys({ service }: LawContext) {
  const scope = freshScope("retry-keys");
  const keys = [
    "🔑".repeat(64),
    `${"€".repeat(85)}a`,
    `${"€".repeat(85)}b`,
    "key",
    "Key",
    "r\u00e9sum\u00e9",
    "re\u0301sume\u0301",
    "key ",
  ];
  const firsts: ArtifactMeta[] = [];
  for (const [i, key] of keys.entries()) {
    const meta = await service.put(scope, NAME, payload(10 + i), { idempotencyKey: key });
    expectEqual(meta.idempotencyKey, key, `the record keeps the key ${JSON.stringify(key)}`);
    firsts.push(meta);
  }
  expectEqual(
    new Set(firsts.map((meta) => meta.version)).size,
    keys.length,
    "each key published its own version",
  );
  for (const [i, key] of keys.entries()) {
    const retry = await service.put(scope, NAME, payload(10 + i), { idempotencyKey: key });
    expectSameVersion(retry, firsts[i] as ArtifactMeta, `a retry under ${JSON.stringify(key)}`);
  }
  expectEqual((await versionsOf(service, scope)).length, keys.length, "the retries wrote nothing");
}

/** An upload's maxBytes above maxArtifactBytes does not raise it: the adapter's bound holds. */
async function uploadBoundNeverExceedsTheAdapters({ service }: LawContext) {
  const bound = service.capabilities().quotas.bounds.maxArtifactBytes;
  if (bound === undefined) return skip("the adapter declares no maxArtifactBytes");
  if (bound > 4 * 1024 * 1024) return skip(`maxArtifactBytes = ${bound} is too large for a test`);
  if (!hasTransfer(service)) return skip("no openUpload");
  const scope = freshScope("upload-bound");
  await expectFails(
    () =>
      uploadChunks(service, scope, [new Uint8Array(bound), new Uint8Array(1)], {
        maxBytes: bound + 100,
      }),
    ["artifact_too_large"],
    `an upload of ${bound + 1} bytes with maxBytes ${bound + 100} over maxArtifactBytes ${bound}`,
  );
  expectEqual(await versionsOf(service, scope), [], "the oversized upload published nothing");
  return undefined;
}

export const retryLaws = [
  check(
    "idempotency",
    "a keyed streamed upload retried (one at a time or racing) publishes once; a put under its key answers with it; other bytes are invalid_argument; after delete, not_found",
    uploadRetriesPublishOnce,
    { needs: ["streamingUpload"] },
  ),
  check(
    "idempotency",
    "once a quota or capacity is reached, a retry of a published key (put or upload) still answers with its version and takes no room; another payload is invalid_argument",
    retryAtAFullQuota,
    { needs: ["bounded"] },
  ),
  check(
    "transfer",
    "an upload's maxBytes above maxArtifactBytes does not raise it: one byte over maxArtifactBytes is artifact_too_large",
    uploadBoundNeverExceedsTheAdapters,
    { needs: ["bounded", "streamingUpload"] },
  ),
  check(
    "idempotency",
    "equal payloads spelled differently (metadata key order, 1.0 for 1, -0 for 0, {} for none, the default mimeType left out, another deadline) are the same payload; a real difference is invalid_argument",
    equalPayloadsSpelledDifferently,
  ),
  check(
    "idempotency",
    "keys of 256 UTF-8 bytes work, and keys that differ only by case, whitespace or normalization are different keys",
    longAndLookalikeKeys,
  ),
];
