import fc from "fast-check";
import { DEFAULT_MIME_TYPE } from "../../limits.js";
import type { Scope } from "../../types.js";
import { freshScope, nameArb, putInputArb, putOptionsOf } from "../arbitraries.js";
import { check, type LawContext } from "../check.js";
import { expectArtifactError, expectEqual, expectTrue } from "../expect.js";
import { byUtf8Bytes, type ModelVersion } from "../model.js";
import {
  expectArtifact,
  expectPlausibleCreatedAt,
  expectRecord,
  readAllNames,
  readAllVersions,
} from "../observe.js";
import { largestPut } from "../payload.js";

/** put, get and head round-trip every field, for data of every generated size. */
async function roundTrip({ service, property }: LawContext) {
  const bound = service.capabilities().quotas.bounds.maxArtifactBytes;
  await property([nameArb, putInputArb(largestPut(bound))], async (name, input) => {
    const scope = freshScope("round-trip");
    const data = input.payload.bytes;
    const sent = data.slice();
    const startedAt = Date.now();
    const meta = await service.put(scope, name, sent, putOptionsOf(input));
    const expected: ModelVersion = {
      version: meta.version,
      data,
      mimeType: input.mimeType ?? DEFAULT_MIME_TYPE,
      metadata: input.metadata ?? {},
      createdAt: expectPlausibleCreatedAt(meta, startedAt, "put reply"),
    };
    expectRecord(meta, scope, name, expected, "put reply");
    sent.fill(0xa5); // the caller reuses its buffer: the store must not notice
    const latest = await service.get(scope, name);
    expectArtifact(latest, scope, name, expected, "get latest");
    latest.data.fill(0x5a); // nor may the reader's copy reach the store
    expectArtifact(
      await service.get(scope, name, { version: meta.version }),
      scope,
      name,
      expected,
      "get pinned",
    );
    const head = await service.head(scope, name);
    expectTrue(!("data" in head), "head returned data");
    expectRecord(head, scope, name, expected, "head");
  });
}

/** Versions strictly increase and are never reused after delete or delete all. */
async function versionsNeverReused({ service }: LawContext) {
  const scope = freshScope("versions");
  const put = async () => (await service.put(scope, "v", new Uint8Array([1]))).version;
  const versionsOf = async () => (await readAllVersions(service, scope, "v")).map((m) => m.version);
  const v1 = await put();
  expectTrue(v1 >= 1, `first version is ${v1}, not a positive integer`);
  const v2 = await put();
  expectTrue(v2 > v1, `second put got ${v2} after ${v1}`);
  await service.delete(scope, "v", "latest");
  const v3 = await put();
  expectTrue(v3 > v2, `a put after deleting the latest reused ${v3} (high-water ${v2})`);
  await service.delete(scope, "v", v1);
  await expectArtifactError(
    () => service.get(scope, "v", { version: v1 }),
    "not_found",
    "get of a deleted version",
  );
  await expectArtifactError(
    () => service.delete(scope, "v", v1),
    "not_found",
    "deleting a deleted version",
  );
  expectEqual(await versionsOf(), [v3], "live versions after deletes");
  await service.delete(scope, "v", "all");
  expectEqual(await versionsOf(), [], "live versions after delete all");
  await expectArtifactError(
    () => service.get(scope, "v"),
    "not_found",
    "get latest after delete all",
  );
  await expectArtifactError(
    () => service.delete(scope, "v", "all"),
    "not_found",
    "delete all of nothing live",
  );
  await expectArtifactError(
    () => service.delete(scope, "v", "latest"),
    "not_found",
    "delete latest of nothing",
  );
  const v4 = await put();
  expectTrue(v4 > v3, `a put after delete all reused ${v4} (high-water ${v3})`);
  expectEqual(await readAllNames(service, scope), ["v"], "names after the last put");
}

/** Names are listed in UTF-8 byte order (astral after BMP). */
async function sortOrder({ service, property }: LawContext) {
  await property([fc.uniqueArray(nameArb, { minLength: 1, maxLength: 12 })], async (names) => {
    const scope = freshScope("order");
    for (const name of names) await service.put(scope, name, new Uint8Array(0));
    expectEqual(
      await readAllNames(service, scope),
      [...names].sort(byUtf8Bytes),
      "names in UTF-8 byte order",
    );
  });
  // UTF-16 order puts U+1F600 before U+FF5A; UTF-8 byte order puts it after.
  const scope = freshScope("order");
  for (const name of ["😀", "ｚ", "z", "\u{10FFFF}", "\uFFFF"])
    await service.put(scope, name, new Uint8Array(0));
  expectEqual(
    await readAllNames(service, scope),
    ["z", "ｚ", "\uFFFF", "😀", "\u{10FFFF}"],
    "astral after BMP",
  );
}

/** Concatenated pages equal the full listing, for names and versions. */
async function paginationCompleteness({ service, property }: LawContext) {
  await property(
    [
      fc.uniqueArray(nameArb, { maxLength: 16 }),
      fc.integer({ min: 1, max: 6 }),
      fc.array(fc.boolean(), { minLength: 1, maxLength: 14 }),
    ],
    async (names, limit, keepVersions) => {
      const scope = freshScope("pages");
      for (const name of names) await service.put(scope, name, new Uint8Array([1]));
      expectEqual(
        await readAllNames(service, scope, limit),
        [...names].sort(byUtf8Bytes),
        "names, paged",
      );
      const kept: number[] = [];
      for (const keep of keepVersions) {
        const { version } = await service.put(scope, "paged", new Uint8Array([2]));
        if (keep) kept.push(version);
        else await service.delete(scope, "paged", version);
      }
      const versions = await readAllVersions(service, scope, "paged", limit);
      expectEqual(
        versions.map((m) => m.version),
        kept,
        "versions, paged, ascending, deleted ones absent",
      );
    },
  );
}

/** The same name in app, user and session scopes is three artifacts. */
async function scopesAreIndependent({ service }: LawContext) {
  const base = freshScope("independent");
  const scopes: Scope[] = [
    { kind: "app", app: base.app },
    { kind: "user", app: base.app, user: base.user },
    base,
  ];
  for (const [i, scope] of scopes.entries()) await service.put(scope, "same", new Uint8Array([i]));
  for (const [i, scope] of scopes.entries()) {
    const artifact = await service.get(scope, "same");
    expectEqual([...artifact.data], [i], `artifact "same" in ${scope.kind} scope`);
    expectEqual(await readAllNames(service, scope), ["same"], `names in ${scope.kind} scope`);
  }
  await service.delete(scopes[0] as Scope, "same", "all");
  expectEqual(
    await readAllNames(service, scopes[1] as Scope),
    ["same"],
    "deleting in the app scope left the user scope",
  );
}

export const basicLaws = [
  check(
    "laws",
    "put/get/head round-trip every field for data of every generated size; stored bytes are isolated from callers",
    roundTrip,
  ),
  check(
    "laws",
    "versions strictly increase and are never reused after delete or delete all",
    versionsNeverReused,
  ),
  check("laws", "names are listed in UTF-8 byte order (astral after BMP)", sortOrder),
  check(
    "laws",
    "concatenated pages equal the full listing, for names and versions",
    paginationCompleteness,
  ),
  check(
    "laws",
    "the same name in app, user and session scopes is three artifacts",
    scopesAreIndependent,
  ),
];
