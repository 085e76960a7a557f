import type { ArtifactError } from "../../errors.js";
import type { ArtifactService, JsonObject, Scope } from "../../types.js";
import { freshScope } from "../arbitraries.js";
import { check, type LawContext } from "../check.js";
import { expectArtifactError, expectEqual, expectTrue } from "../expect.js";
import { byUtf8Bytes } from "../model.js";
import { readAllNames, readAllVersions } from "../observe.js";
import { expectExactJson, jsonMetadataArb, LOOKALIKE_IDS } from "../values.js";

// The value domain: arbitrary JSON metadata reads back exactly on every path and after a
// reopen; names and scope ids are limited by UTF-8 bytes, not UTF-16 units; identifiers that
// differ only by case, whitespace or normalization are different artifacts and scopes.

const NAME = "values/doc.json";

/** Every way a record comes back carries `metadata` exactly. */
async function expectMetadataEverywhere(
  service: ArtifactService,
  scope: Scope,
  metadata: JsonObject,
  what: string,
) {
  expectExactJson((await service.get(scope, NAME)).metadata, metadata, `${what}: get`);
  expectExactJson((await service.head(scope, NAME)).metadata, metadata, `${what}: head`);
  const [listed] = await readAllVersions(service, scope, NAME);
  expectExactJson(listed?.metadata, metadata, `${what}: listVersions`);
  const [legacy] = await service.list(scope);
  expectExactJson(legacy?.metadata, metadata, `${what}: list`);
}

/** Arbitrary JSON metadata within the limits round-trips exactly, and survives reopen. */
async function metadataRoundTrips(context: LawContext) {
  const stored: [Scope, JsonObject][] = [];
  await context.property([jsonMetadataArb], async (metadata) => {
    const scope = freshScope("values-metadata");
    const meta = await context.service.put(scope, NAME, Uint8Array.of(1), { metadata });
    expectExactJson(meta.metadata, metadata, "the put's record");
    await expectMetadataEverywhere(context.service, scope, metadata, "a read");
    stored.push([scope, metadata]);
  });
  if (!context.hooks.reopen) return;
  const service = await context.reopen();
  for (const [scope, metadata] of stored) {
    await expectMetadataEverywhere(service, scope, metadata, "after reopen");
  }
}

const repeat = (unit: string, times: number) => unit.repeat(times);

/** Names of exactly 1,024 UTF-8 bytes, far shorter in UTF-16 units. */
const NAMES_AT_THE_LIMIT: readonly [string, string][] = [
  ["340 three-byte characters and one four-byte", `${repeat("€", 340)}😀`],
  ["256 four-byte characters", repeat("😀", 256)],
  ["three-byte segments", `${repeat("€", 169)}/${repeat("語", 170)}/a😀`],
  ["1,020 ASCII bytes and one four-byte character", `${repeat("a", 1020)}😀`],
];
/** One byte over. */
const NAMES_OVER_THE_LIMIT: readonly [string, string][] = [
  ["341 three-byte characters and one two-byte", `${repeat("€", 341)}é`],
  ["256 four-byte characters and one ASCII", `${repeat("😀", 256)}a`],
  ["1,021 ASCII bytes and one four-byte character", `${repeat("a", 1021)}😀`],
];
/** Scope ids of exactly 256 UTF-8 bytes, and one byte over. */
const IDS_AT_THE_LIMIT = [`${repeat("€", 85)}a`, repeat("😀", 64)];
const IDS_OVER_THE_LIMIT = [`${repeat("€", 85)}é`, `${repeat("😀", 64)}a`];

/** Names and scope ids are limited by UTF-8 bytes: exactly the limit passes, one byte more fails. */
async function limitsCountUtf8Bytes({ service }: LawContext) {
  const scope = freshScope("values-long-names");
  for (const [i, [what, name]] of NAMES_AT_THE_LIMIT.entries()) {
    expectEqual(Buffer.byteLength(name), 1024, `${what}: the kit's own byte count`);
    const meta = await service.put(scope, name, Uint8Array.of(i));
    expectEqual(meta.name, name, `${what}: the record's name`);
    const read = await service.get(scope, name);
    expectEqual([read.name, [...read.data]], [name, [i]], `${what}: get`);
  }
  const names = NAMES_AT_THE_LIMIT.map(([, name]) => name).sort(byUtf8Bytes);
  expectEqual(await readAllNames(service, scope, 1), names, "listNames of the 1,024-byte names");
  for (const [what, name] of NAMES_OVER_THE_LIMIT) {
    expectEqual(Buffer.byteLength(name), 1025, `${what}: the kit's own byte count`);
    const error = await expectArtifactError(
      () => service.put(scope, name, Uint8Array.of(0)),
      "invalid_argument",
      `a name of 1,025 UTF-8 bytes (${what})`,
    );
    expectEqual((error as ArtifactError).detail.field, "name", `${what}: detail.field`);
  }
  expectEqual(await readAllNames(service, scope), names, "the rejected names wrote nothing");
  for (const id of IDS_AT_THE_LIMIT) {
    const long: Scope = { kind: "session", app: id, user: id, session: id };
    await service.put(long, "n", Uint8Array.of(7));
    expectEqual([...(await service.get(long, "n")).data], [7], "a scope of 256-byte ids");
  }
  for (const id of IDS_OVER_THE_LIMIT) {
    for (const field of ["app", "user", "session"] as const) {
      const long = { kind: "session", app: "a", user: "u", session: "s", [field]: id } as Scope;
      await expectArtifactError(
        () => service.put(long, "n", Uint8Array.of(0)),
        "invalid_argument",
        `a scope whose ${field} is 257 UTF-8 bytes`,
      );
    }
  }
}

/** Segments that only begin with dots are valid: only "." and ".." themselves are refused. */
const DOTTED_NAMES = [".a", "..a", "...", "a/.b", "a/..b/c", ".../x", "a/.", "._", ".😀"];

async function dottedSegmentsAreNames({ service }: LawContext) {
  const scope = freshScope("values-dotted");
  const valid = DOTTED_NAMES.filter((name) => !name.endsWith("/."));
  for (const [i, name] of valid.entries()) {
    await service.put(scope, name, Uint8Array.of(i));
    expectEqual([...(await service.get(scope, name)).data], [i], `get ${JSON.stringify(name)}`);
  }
  await expectArtifactError(
    () => service.put(scope, "a/.", Uint8Array.of(0)),
    "invalid_argument",
    'a name whose last segment is "."',
  );
  expectEqual(
    await readAllNames(service, scope),
    [...valid].sort(byUtf8Bytes),
    "listNames of the dotted names",
  );
}

/** Names that differ only by case, whitespace or normalization are different artifacts. */
async function lookalikeNamesAreDistinct({ service }: LawContext) {
  const scope = freshScope("values-lookalike-names");
  for (const [i, name] of LOOKALIKE_IDS.entries()) {
    await service.put(scope, name, Uint8Array.of(i));
  }
  const sorted = [...LOOKALIKE_IDS].sort(byUtf8Bytes);
  expectEqual(await readAllNames(service, scope, 5), sorted, "listNames of the lookalike names");
  for (const [i, name] of LOOKALIKE_IDS.entries()) {
    const read = await service.get(scope, name);
    expectEqual([read.name, [...read.data]], [name, [i]], `get ${JSON.stringify(name)}`);
    expectEqual(read.version, 1, `${JSON.stringify(name)} is its own artifact: version`);
  }
  await service.delete(scope, LOOKALIKE_IDS[0] as string, "all");
  expectEqual(
    await readAllNames(service, scope),
    sorted.filter((name) => name !== LOOKALIKE_IDS[0]),
    "deleting one lookalike leaves the others",
  );
}

/** Scope ids that differ only by case, whitespace or normalization are different scopes. */
async function lookalikeScopesAreDistinct({ service }: LawContext) {
  const base = freshScope("values-lookalike-scopes");
  for (const field of ["app", "user", "session"] as const) {
    const scopes = LOOKALIKE_IDS.map((id) => ({ ...base, [field]: id }) as Scope);
    await Promise.all(scopes.map((scope, i) => service.put(scope, field, Uint8Array.of(i))));
    for (const [i, scope] of scopes.entries()) {
      const read = await service.get(scope, field);
      expectEqual(
        [[...read.data], read.version],
        [[i], 1],
        `${field} ${JSON.stringify(LOOKALIKE_IDS[i])}: its own artifact`,
      );
      const versions = await readAllVersions(service, scope, field);
      expectEqual(versions.length, 1, `${field} ${JSON.stringify(LOOKALIKE_IDS[i])}: versions`);
      expectTrue(
        (read.scope as Record<string, string>)[field] === LOOKALIKE_IDS[i],
        `${field} ${JSON.stringify(LOOKALIKE_IDS[i])}: the record's scope keeps the id as given, got ${JSON.stringify(read.scope)}`,
      );
    }
  }
}

export const valueLaws = [
  check(
    "values",
    'segments that only begin with dots (".a", "..a", "...") are valid names; "." and ".." are not',
    dottedSegmentsAreNames,
  ),
  check(
    "values",
    "arbitrary JSON metadata within the limits (prototype-named keys, control characters and NUL, deep nesting, any key order, every finite number; -0 as 0) reads back exactly from put, get, head, listVersions and list, and after reopen",
    metadataRoundTrips,
  ),
  check(
    "values",
    "names and scope ids are limited by UTF-8 bytes: 1,024-byte names (and 256-byte ids) of three- and four-byte characters are accepted, one byte more is invalid_argument",
    limitsCountUtf8Bytes,
  ),
  check(
    "values",
    "names that differ only by case, whitespace or Unicode normalization, or by an invisible character, are different artifacts",
    lookalikeNamesAreDistinct,
  ),
  check(
    "values",
    "app, user and session ids that differ only by case, whitespace or Unicode normalization, or by an invisible character, are different scopes",
    lookalikeScopesAreDistinct,
  ),
];
