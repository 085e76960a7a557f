import { DEFAULT_MIME_TYPE } from "../../limits.js";
import type { ArtifactService, Scope } from "../../types.js";
import { freshScope } from "../arbitraries.js";
import { check, type LawContext } from "../check.js";
import { expectArtifactError, expectEqual, expectTrue } from "../expect.js";
import { ReferenceModel } from "../model.js";
import {
  expectArtifact,
  expectEveryViewAgrees,
  expectPlausibleCreatedAt,
  expectRecord,
  readAllNames,
  readAllVersions,
} from "../observe.js";
import { BOUNDARY_SIZES, seededBytes } from "../payload.js";

// Multi-step state laws on one artifact (the two-handle laws reuse putTracked): every view of it (head, get, listVersions, list)
// agrees with the model after each kind of delete, and the version high-water never goes back.

const NAME = "state/artifact";

export async function putTracked(
  service: ArtifactService,
  model: ReferenceModel,
  scope: Scope,
  size: number,
  seed: number,
) {
  const data = seededBytes(size, seed);
  const startedAt = Date.now();
  const meta = await service.put(scope, NAME, data.slice(), { metadata: { seed } });
  const highWater = model.highWater(scope, NAME);
  expectTrue(
    meta.version > highWater,
    `put: version: expected above the high-water ${highWater}, got ${meta.version}`,
  );
  const expected = {
    version: meta.version,
    data,
    mimeType: DEFAULT_MIME_TYPE,
    metadata: { seed },
    createdAt: expectPlausibleCreatedAt(meta, startedAt, "put reply"),
  };
  expectRecord(meta, scope, NAME, expected, "put reply");
  model.record(scope, NAME, expected);
  return meta.version;
}

/**
 * latest is the highest live version after several top versions are deleted by number;
 * head(latest), get(latest), listVersions and list agree after every kind of delete.
 */
async function latestAfterEveryKindOfDelete({ service }: LawContext) {
  const scope = freshScope("latest");
  const model = new ReferenceModel();
  const step = async (label: string, selector: number | "latest" | "all") => {
    model.delete(scope, NAME, selector);
    await service.delete(scope, NAME, selector);
    await expectEveryViewAgrees(service, model, scope, NAME, label);
    await expectGoneVersionsGone(service, model, scope, label);
  };
  for (let seed = 1; seed <= 6; seed++) await putTracked(service, model, scope, 16 * seed, seed);
  await expectEveryViewAgrees(service, model, scope, NAME, "after six puts");
  const top = model.highWater(scope, NAME);
  await step("after deleting the top version by number", top);
  await expectArtifactError(
    () => service.delete(scope, NAME, top),
    "not_found",
    "a second delete of the version just deleted",
  );
  await step("after deleting the next top version by number", top - 1);
  await step('after delete("latest")', "latest");
  await step(
    "after deleting the lowest version by number",
    model.live(scope, NAME)[0]?.version ?? 1,
  );
  await putTracked(service, model, scope, 40, 7);
  await expectEveryViewAgrees(service, model, scope, NAME, "after a put that follows the deletes");
  await step("after deleting that put by number", model.highWater(scope, NAME));
  await step('after delete("all")', "all");
  for (let round = 0; round < 2; round++) {
    await putTracked(service, model, scope, 8, 10 + round);
    await putTracked(service, model, scope, 8, 20 + round);
    await expectEveryViewAgrees(service, model, scope, NAME, `after puts in round ${round + 2}`);
    await step(`after delete("all") in round ${round + 2}`, "all");
  }
  // Emptied one version at a time (by number, then latest), not by "all": the name goes too.
  await putTracked(service, model, scope, 8, 30);
  await putTracked(service, model, scope, 8, 31);
  await step(
    "after deleting the lower of two versions by number",
    model.live(scope, NAME)[0]?.version ?? 1,
  );
  await step('after delete("latest") of the last one', "latest");
  for (const selector of ["all", "latest", top] as const) {
    await expectArtifactError(
      () => service.delete(scope, NAME, selector),
      "not_found",
      `delete(${JSON.stringify(selector)}) of a name with nothing live`,
    );
    // Nothing was ever written there: a store whose delete of a missing key succeeds (an
    // object store's DELETE) must still find out that nothing matched.
    for (const [where, name] of [
      [scope, `${NAME}-never`],
      [freshScope("latest-never"), NAME],
    ] as const) {
      await expectArtifactError(
        () => service.delete(where, name, selector),
        "not_found",
        `delete(${JSON.stringify(selector)}) of a name never written`,
      );
    }
  }
}

/**
 * What a delete removed stays gone from every view, and what was never allocated was never
 * there: each version below the high-water that is not live, and the one above it, is
 * not_found by number to head and get (not served from a soft-deleted row, not refused as
 * out of range: it is a valid version that names nothing); the name is listed by listNames
 * exactly while a version of it is live (also when its versions went one by one).
 */
async function expectGoneVersionsGone(
  service: ArtifactService,
  model: ReferenceModel,
  scope: Scope,
  step: string,
) {
  const live = new Set(model.live(scope, NAME).map((version) => version.version));
  const highWater = model.highWater(scope, NAME);
  for (let version = 1; version <= highWater + 1; version++) {
    if (live.has(version)) continue;
    const what = `${step}: version ${version}${version > highWater ? " (above the high-water)" : ""}`;
    await expectArtifactError(
      () => service.head(scope, NAME, { version }),
      "not_found",
      `${what}: head`,
    );
    await expectArtifactError(
      () => service.get(scope, NAME, { version }),
      "not_found",
      `${what}: get`,
    );
  }
  expectEqual(
    (await readAllNames(service, scope)).includes(NAME),
    live.size > 0,
    `${step}: whether listNames lists the name (${live.size} live versions)`,
  );
}

/** Sizes and digests are right at every block boundary and one byte either side. */
async function sizesAndDigestsAtBoundaries({ service }: LawContext) {
  const scope = freshScope("sizes");
  const model = new ReferenceModel();
  const bound = service.capabilities().quotas.bounds.maxArtifactBytes ?? Number.POSITIVE_INFINITY;
  const sizes = [0, 1, 20, 21, 31, 32, 33, 55, 56, 63, 64, 65, 1023, 1024, 1025, ...BOUNDARY_SIZES];
  for (const [i, size] of sizes.filter((s) => s <= bound).entries()) {
    await putTracked(service, model, scope, size, i + 1);
    const latest = model.latest(scope, NAME);
    if (!latest) continue;
    expectArtifact(await service.get(scope, NAME), scope, NAME, latest, `get of ${size} bytes`);
    expectRecord(await service.head(scope, NAME), scope, NAME, latest, `head of ${size} bytes`);
    await service.delete(scope, NAME, "latest");
    model.delete(scope, NAME, "latest");
  }
}

/**
 * A name of more versions than a small listing page, a version window or a record chunk: its
 * pages are complete at small limits, also after deletes in the middle of versions
 * already listed; latest is right after each of its top versions is deleted in turn; and
 * delete("all") removes every one of them. Adapters that read a name's versions in pieces
 * (listing pages, windows below a high-water mark, chunks of records) miss the piece's edge.
 */
async function manyVersionsOfOneName({ service }: LawContext) {
  const scope = freshScope("many-versions");
  const model = new ReferenceModel();
  const { maxPageLimit: maxLimit, legacyListLimit } = service.capabilities().pagination;
  const small = [3, 4].filter((limit) => limit <= maxLimit);
  const expectPages = async (step: string, limits: readonly number[] = []) => {
    const live = model.live(scope, NAME).map((version) => version.version);
    for (const limit of [...limits, undefined]) {
      const listed = await readAllVersions(service, scope, NAME, limit);
      expectEqual(
        listed.map((meta) => meta.version),
        live,
        `${step}: listVersions at limit ${limit ?? "default"}`,
      );
    }
    // Past version 9 an order of versions as strings (10 before 9) shows.
    if (live.length > legacyListLimit) return;
    const legacy = (await service.list(scope)).map((meta) => meta.version);
    expectEqual(legacy, live, `${step}: the legacy list, by version number`);
  };
  const expectLatest = async (step: string) => {
    const latest = model.latest(scope, NAME);
    if (!latest) {
      await expectArtifactError(() => service.head(scope, NAME), "not_found", `${step}: head`);
      return;
    }
    expectRecord(await service.head(scope, NAME), scope, NAME, latest, `${step}: head latest`);
    expectArtifact(await service.get(scope, NAME), scope, NAME, latest, `${step}: get latest`);
  };
  for (let seed = 1; seed <= 20; seed++) await putTracked(service, model, scope, seed % 7, seed);
  await expectPages("after 20 puts", small);
  for (const version of [5, 9, 12]) {
    model.delete(scope, NAME, version);
    await service.delete(scope, NAME, version);
  }
  await expectPages("after deleting versions 5, 9 and 12, already listed", small);
  for (let deleted = 1; deleted <= 8; deleted++) {
    const step = `after deleting the top version ${deleted} times`;
    const selector = deleted % 2 === 0 ? "latest" : (model.latest(scope, NAME)?.version ?? 1);
    model.delete(scope, NAME, selector);
    await service.delete(scope, NAME, selector);
    await expectLatest(step);
  }
  await expectPages("after deleting eight top versions");
  model.delete(scope, NAME, "all");
  await service.delete(scope, NAME, "all");
  await expectLatest('after delete("all")');
  await expectPages('after delete("all")');
  expectTrue(
    !(await readAllNames(service, scope)).includes(NAME),
    'after delete("all"): listNames still lists the name',
  );
}

export const stateLaws = [
  check(
    "state",
    "latest is the highest live version after top versions are deleted by number; head, get, listVersions, list and listNames agree after every kind of delete, and a deleted or never-allocated version is not_found; a delete that finds nothing live (or a name never written) is not_found",
    latestAfterEveryKindOfDelete,
  ),
  check(
    "state",
    "size and sha256 are right for 0 bytes, every digest padding edge and every block boundary +/- 1",
    sizesAndDigestsAtBoundaries,
  ),
  check(
    "state",
    'a name of 20 versions: pages complete at limits 3, 4 and the default and the legacy list in version order after deletes in the middle, latest after each top version is deleted, delete("all") removes them all',
    manyVersionsOfOneName,
  ),
];
