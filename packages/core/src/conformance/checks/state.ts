import { DEFAULT_MIME_TYPE } from "../../limits.js";
import type { ArtifactService, Scope } from "../../types.js";
import { freshScope } from "../arbitraries.js";
import { check, type LawContext } from "../check.js";
import { expectTrue } from "../expect.js";
import { ReferenceModel } from "../model.js";
import {
  expectArtifact,
  expectEveryViewAgrees,
  expectPlausibleCreatedAt,
  expectRecord,
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
  };
  for (let seed = 1; seed <= 6; seed++) await putTracked(service, model, scope, 16 * seed, seed);
  await expectEveryViewAgrees(service, model, scope, NAME, "after six puts");
  const top = model.highWater(scope, NAME);
  await step("after deleting the top version by number", top);
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

export const stateLaws = [
  check(
    "state",
    "latest is the highest live version after top versions are deleted by number; head, get, listVersions and list agree after every kind of delete",
    latestAfterEveryKindOfDelete,
  ),
  check(
    "state",
    "size and sha256 are right for 0 bytes, every digest padding edge and every block boundary +/- 1",
    sizesAndDigestsAtBoundaries,
  ),
];
