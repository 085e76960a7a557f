import { sameScope, sha256Hex } from "../scope.js";
import type { ArtifactMeta, ArtifactService, Scope } from "../types.js";
import { expectArtifactError, expectEqual, expectSameJson, expectTrue, fail } from "./expect.js";
import { byUtf8Bytes, type ModelVersion, type ReferenceModel } from "./model.js";
import { describeBytes } from "./payload.js";

// Reading a service back completely, checking every page on the way, and comparing the
// records it returns with what the model expects.

/** Guards against an adapter whose cursors never end. */
const MAX_PAGES = 10_000;

/** Every live name in `scope`, page by page; checks page size, cursors and non-empty pages. */
export async function readAllNames(
  service: ArtifactService,
  scope: Scope,
  limit?: number,
  prefix?: string,
): Promise<string[]> {
  const names: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < MAX_PAGES; pages++) {
    const page = await service.listNames(scope, {
      ...(limit === undefined ? {} : { limit }),
      ...(cursor === undefined ? {} : { cursor }),
      ...(prefix === undefined ? {} : { prefix }),
    });
    expectTrue(sameScope(page.scope, scope), `listNames returned a page for another scope`);
    if (limit !== undefined) {
      expectTrue(
        page.items.length <= limit,
        `listNames page of ${page.items.length} exceeds limit ${limit}`,
      );
    }
    if (cursor !== undefined) {
      const at = cursor;
      expectTrue(
        page.items.every((name) => byUtf8Bytes(name, at) > 0),
        `listNames after cursor ${JSON.stringify(at)} returned ${JSON.stringify(page.items)}: cursors are exclusive`,
      );
    }
    names.push(...page.items);
    if (page.nextCursor === undefined) return names;
    expectTrue(page.items.length > 0, "listNames returned an empty page with a nextCursor");
    expectEqual(
      page.nextCursor,
      page.items.at(-1),
      "listNames nextCursor (the last name returned)",
    );
    cursor = page.nextCursor;
  }
  return fail("listNames never stopped returning a nextCursor");
}

/** Every live version of `name`, page by page; checks pages carry no data. */
export async function readAllVersions(
  service: ArtifactService,
  scope: Scope,
  name: string,
  limit?: number,
): Promise<ArtifactMeta[]> {
  const versions: ArtifactMeta[] = [];
  let cursor: number | undefined;
  for (let pages = 0; pages < MAX_PAGES; pages++) {
    const page = await service.listVersions(scope, name, {
      ...(limit === undefined ? {} : { limit }),
      ...(cursor === undefined ? {} : { cursor }),
    });
    if (limit !== undefined) {
      expectTrue(
        page.items.length <= limit,
        `listVersions page of ${page.items.length} exceeds limit ${limit}`,
      );
    }
    for (const item of page.items) {
      expectTrue(!("data" in item), "a listVersions page carries data");
      expectTrue(
        cursor === undefined || item.version > cursor,
        `listVersions after cursor ${cursor} returned version ${item.version}: cursors are exclusive`,
      );
      versions.push(item);
    }
    if (page.nextCursor === undefined) return versions;
    expectTrue(page.items.length > 0, "listVersions returned an empty page with a nextCursor");
    expectEqual(
      page.nextCursor,
      page.items.at(-1)?.version,
      "listVersions nextCursor (the last version returned)",
    );
    cursor = page.nextCursor;
  }
  return fail("listVersions never stopped returning a nextCursor");
}

const digests = new WeakMap<Uint8Array, string>();

/** sha256 of the kit's own copy of a payload, computed once however often it is read back. */
export function digestOf(data: Uint8Array): string {
  let digest = digests.get(data);
  if (digest === undefined) {
    digest = sha256Hex(data);
    digests.set(data, digest);
  }
  return digest;
}

const META_KEYS = [
  "createdAt",
  "metadata",
  "mimeType",
  "name",
  "scope",
  "sha256",
  "size",
  "version",
];

/** The fields a record of `expected` has: idempotencyKey only when it was put with one. */
const fieldsOf = (expected: ModelVersion, extra: readonly string[] = []) =>
  [
    ...META_KEYS,
    ...extra,
    ...(expected.idempotencyKey === undefined ? [] : ["idempotencyKey"]),
  ].sort();

/** A record describes exactly `expected` of (scope, name), field by field, and nothing else. */
export function expectRecord(
  meta: ArtifactMeta,
  scope: Scope,
  name: string,
  expected: ModelVersion,
  what: string,
): void {
  expectTrue(
    typeof meta === "object" && meta !== null,
    `${what}: expected a record, got ${String(meta)}`,
  );
  expectTrue(
    sameScope(meta.scope, scope),
    `${what}: scope: expected ${JSON.stringify(scope)}, got ${JSON.stringify(meta.scope)}`,
  );
  expectEqual(meta.name, name, `${what}: name`);
  expectEqual(meta.version, expected.version, `${what}: version`);
  expectEqual(meta.mimeType, expected.mimeType, `${what}: mimeType`);
  expectEqual(meta.size, expected.data.byteLength, `${what}: size`);
  expectEqual(meta.sha256, digestOf(expected.data), `${what}: sha256 of the bytes put`);
  expectEqual(meta.createdAt, expected.createdAt, `${what}: createdAt (as the put reply said)`);
  expectSameJson(meta.metadata, expected.metadata, `${what}: metadata`);
  expectEqual(meta.idempotencyKey, expected.idempotencyKey, `${what}: idempotencyKey`);
  expectEqual(
    Object.keys(meta)
      .filter((key) => key !== "data" && !(key === "idempotencyKey" && meta[key] === undefined))
      .sort(),
    fieldsOf(expected),
    `${what}: the record's fields`,
  );
}

/** Slack for adapters whose clock is a server's: createdAt within a minute of the call. */
const CLOCK_SLACK_MS = 60_000;

/** A put reply's createdAt is an integer time taken during the call (give or take a minute). */
export function expectPlausibleCreatedAt(
  meta: ArtifactMeta,
  startedAt: number,
  what: string,
): number {
  const { createdAt } = meta;
  const now = Date.now();
  expectTrue(
    Number.isSafeInteger(createdAt) &&
      createdAt >= startedAt - CLOCK_SLACK_MS &&
      createdAt <= now + CLOCK_SLACK_MS,
    `${what}: createdAt: expected a ms timestamp between ${startedAt} and ${now}, got ${String(createdAt)}`,
  );
  return createdAt;
}

/** As `expectRecord`, and the bytes are exactly the expected bytes. */
export function expectArtifact(
  artifact: ArtifactMeta & { data: Uint8Array },
  scope: Scope,
  name: string,
  expected: ModelVersion,
  what: string,
): void {
  expectTrue(artifact?.data instanceof Uint8Array, `${what}: data is not a Uint8Array`);
  expectRecord(
    { ...artifact, data: undefined } as unknown as ArtifactMeta,
    scope,
    name,
    expected,
    what,
  );
  expectEqual(
    Object.keys(artifact)
      .filter((key) => !(key === "idempotencyKey" && artifact.idempotencyKey === undefined))
      .sort(),
    fieldsOf(expected, ["data"]),
    `${what}: the artifact's fields`,
  );
  const got = Buffer.from(artifact.data.buffer, artifact.data.byteOffset, artifact.data.byteLength);
  if (!got.equals(Buffer.from(expected.data))) {
    fail(
      `${what}: data: expected ${describeBytes(expected.data)} (sha256 ${digestOf(expected.data).slice(0, 12)}..), got ${describeBytes(artifact.data)} (sha256 ${sha256Hex(artifact.data).slice(0, 12)}..)`,
    );
  }
}

/**
 * What a careless caller does with a record it was given: changes every field, the metadata
 * deep down, and the bytes. A frozen record refuses, which is fine; a store that shared the
 * record with its own state now serves the scribbles, which the next read shows.
 */
export function scribble(record: unknown): void {
  const attempt = (change: () => void) => {
    try {
      change();
    } catch {
      // frozen: nothing changes, which is as good as a copy
    }
  };
  if (typeof record !== "object" || record === null) return;
  if (record instanceof Uint8Array) {
    attempt(() => record.fill(0xcc));
    return;
  }
  for (const [key, value] of Object.entries(record)) {
    if (typeof value === "object" && value !== null) scribble(value);
    else
      attempt(() => {
        (record as Record<string, unknown>)[key] =
          typeof value === "number" ? value + 1 : `${String(value)}~`;
      });
  }
  attempt(() => {
    (record as Record<string, unknown>).scribbled = true;
  });
}

/** head, get (latest and each version), listVersions and list all say what the model says of `name`. */
export async function expectEveryViewAgrees(
  service: ArtifactService,
  model: ReferenceModel,
  scope: Scope,
  name: string,
  step: string,
) {
  const live = model.live(scope, name);
  const latest = model.latest(scope, name);
  if (!latest) {
    await expectArtifactError(() => service.head(scope, name), "not_found", `${step}: head latest`);
    await expectArtifactError(() => service.get(scope, name), "not_found", `${step}: get latest`);
  } else {
    const head = await service.head(scope, name);
    expectRecord(head, scope, name, latest, `${step}: head latest`);
    expectArtifact(await service.get(scope, name), scope, name, latest, `${step}: get latest`);
  }
  for (const version of live) {
    const pinned = { version: version.version };
    expectRecord(await service.head(scope, name, pinned), scope, name, version, `${step}: head`);
    expectArtifact(await service.get(scope, name, pinned), scope, name, version, `${step}: get`);
  }
  const listed = await readAllVersions(service, scope, name, 2);
  expectEqual(
    listed.map((m) => m.version),
    live.map((v) => v.version),
    `${step}: listVersions`,
  );
  listed.forEach((meta, i) => {
    expectRecord(meta, scope, name, live[i] as never, `${step}: listVersions`);
  });
  const all = (await service.list(scope)).filter((meta) => meta.name === name);
  expectEqual(
    all.map((m) => m.version),
    live.map((v) => v.version),
    `${step}: list`,
  );
  all.forEach((meta, i) => {
    expectRecord(meta, scope, name, live[i] as never, `${step}: list`);
  });
  // Listings are records: a page that reads whole artifacts to build them hands out data.
  for (const [what, records] of [
    ["listVersions", listed],
    ["list", all],
  ] as const) {
    expectTrue(
      records.every((meta) => (meta as { data?: unknown }).data === undefined),
      `${step}: ${what} carries data (listings are records, never bytes)`,
    );
  }
}
