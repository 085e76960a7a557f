import fc from "fast-check";
import { DEFAULT_MIME_TYPE } from "../../limits.js";
import type { ArtifactService, Scope } from "../../types.js";
import { freshScope, nameArb, putInputArb, putOptionsOf } from "../arbitraries.js";
import { type ConformanceCheck, propertyParameters } from "../check.js";
import { expectArtifactError, expectEqual, expectTrue } from "../expect.js";
import { byUtf8Bytes, type ModelVersion } from "../model.js";
import { expectArtifact, expectRecord, readAllNames, readAllVersions } from "../observe.js";
import { type ArtifactServiceConformanceOptions, withSubject } from "../subject.js";

type Law = (service: ArtifactService, options: ArtifactServiceConformanceOptions) => Promise<void>;

const law = (
  name: string,
  options: ArtifactServiceConformanceOptions,
  body: Law,
): ConformanceCheck => ({
  name,
  run: () =>
    withSubject(options.create, (holder) => body(holder.service, options)).then(() => undefined),
});

const roundTrip: Law = async (service, options) => {
  await fc.assert(
    fc.asyncProperty(nameArb, putInputArb(8192), async (name, input) => {
      const scope = freshScope("round-trip");
      const sent = input.data.slice();
      const meta = await service.put(scope, name, input.data, putOptionsOf(input));
      const expected: ModelVersion = {
        version: meta.version,
        data: sent,
        mimeType: input.mimeType ?? DEFAULT_MIME_TYPE,
        metadata: input.metadata ?? {},
      };
      expectRecord(meta, scope, name, expected, "put reply");
      input.data.fill(0xa5); // the caller reuses its buffer: the store must not notice
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
    }),
    propertyParameters(options),
  );
};

const versionsNeverReused: Law = async (service) => {
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
};

const sortOrder: Law = async (service, options) => {
  await fc.assert(
    fc.asyncProperty(fc.uniqueArray(nameArb, { minLength: 1, maxLength: 12 }), async (names) => {
      const scope = freshScope("order");
      for (const name of names) await service.put(scope, name, new Uint8Array(0));
      expectEqual(
        await readAllNames(service, scope),
        [...names].sort(byUtf8Bytes),
        "names in UTF-8 byte order",
      );
    }),
    propertyParameters(options),
  );
  // UTF-16 order puts U+1F600 before U+FF5A; UTF-8 byte order puts it after.
  const scope = freshScope("order");
  for (const name of ["😀", "ｚ", "z", "\u{10FFFF}", "\uFFFF"])
    await service.put(scope, name, new Uint8Array(0));
  expectEqual(
    await readAllNames(service, scope),
    ["z", "ｚ", "\uFFFF", "😀", "\u{10FFFF}"],
    "astral after BMP",
  );
};

const paginationCompleteness: Law = async (service, options) => {
  await fc.assert(
    fc.asyncProperty(
      fc.uniqueArray(nameArb, { maxLength: 16 }),
      fc.integer({ min: 1, max: 6 }),
      fc.array(fc.boolean(), { minLength: 1, maxLength: 14 }),
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
    ),
    propertyParameters(options),
  );
};

const scopesAreIndependent: Law = async (service) => {
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
};

export function lawChecks(options: ArtifactServiceConformanceOptions): ConformanceCheck[] {
  return [
    law(
      "laws: put/get/head round-trip byte for byte; stored bytes are isolated from callers",
      options,
      roundTrip,
    ),
    law(
      "laws: versions strictly increase and are never reused after delete or delete all",
      options,
      versionsNeverReused,
    ),
    law("laws: names are listed in UTF-8 byte order (astral after BMP)", options, sortOrder),
    law(
      "laws: concatenated pages equal the full listing, for names and versions",
      options,
      paginationCompleteness,
    ),
    law(
      "laws: the same name in app, user and session scopes is three artifacts",
      options,
      scopesAreIndependent,
    ),
  ];
}
