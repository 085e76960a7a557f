import { TRANSFER_BLOCK_BYTES as B } from "../../transfer.js";
import type { ArtifactMeta, ArtifactService, Scope } from "../../types.js";
import { freshScope } from "../arbitraries.js";
import { check, type LawContext } from "../check.js";
import { expectArtifactError, expectEqual } from "../expect.js";
import { readAllVersions } from "../observe.js";
import { seededBytes } from "../payload.js";

// Stored bytes damaged behind the adapter's back (the subject's `corrupt` hook flips one):
// every whole read of the damaged version says corrupt_artifact instead of returning the
// bytes, whatever the size and wherever the flipped byte is; nothing else is touched, and
// the damaged version can still be listed, deleted and replaced. (The transfer laws prove
// the same of downloads and ranges.)

const NAME = "damaged";

/** Sizes and the byte flipped in each: first, last, and a middle one past a block. */
function cases(service: ArtifactService): { size: number; offset: number }[] {
  const bound = service.capabilities().quotas.bounds.maxArtifactBytes ?? Number.POSITIVE_INFINITY;
  const all = [
    { size: 1, offset: 0 },
    { size: 100, offset: 99 },
    { size: 4096, offset: 2048 },
    { size: B + 7, offset: B + 3 },
    { size: 2 * B + 1, offset: 2 * B },
  ];
  return all.filter(({ size }) => size <= bound);
}

async function expectWholeReadsFail(
  service: ArtifactService,
  scope: Scope,
  meta: ArtifactMeta,
  what: string,
) {
  await expectArtifactError(
    () => service.get(scope, NAME, { version: meta.version }),
    "corrupt_artifact",
    `get of ${what} by number`,
  );
  await expectArtifactError(
    () => service.get(scope, NAME),
    "corrupt_artifact",
    `get of ${what} as latest`,
  );
}

/**
 * A flipped byte anywhere in a version's stored data fails get (by number and as latest)
 * with corrupt_artifact; an older version of the name stays readable; the damaged version
 * is still listed, can be deleted, and the name takes new versions after it.
 */
async function damagedBytesFailEveryWholeRead({ service, corrupt }: LawContext) {
  for (const [i, { size, offset }] of cases(service).entries()) {
    const scope = freshScope(`damaged-${i}`);
    const intact = seededBytes(size, 2 * i + 1);
    const first = await service.put(scope, NAME, intact.slice());
    const meta = await service.put(scope, NAME, seededBytes(size, 2 * i + 2));
    await corrupt(meta, offset);
    const what = `${size} bytes with byte ${offset} flipped`;
    await expectWholeReadsFail(service, scope, meta, what);
    expectEqual(
      (await service.get(scope, NAME, { version: first.version })).data,
      intact,
      `the intact version beside ${what}`,
    );
    expectEqual(
      (await readAllVersions(service, scope, NAME)).map((listed) => listed.version),
      [first.version, meta.version],
      `listVersions beside ${what}`,
    );
    await service.delete(scope, NAME, meta.version);
    await expectArtifactError(
      () => service.get(scope, NAME, { version: meta.version }),
      "not_found",
      `get of ${what} once deleted`,
    );
    expectEqual((await service.get(scope, NAME)).data, intact, `latest once ${what} is deleted`);
    const next = await service.put(scope, NAME, seededBytes(size, 2 * i + 3));
    expectEqual(
      (await service.get(scope, NAME)).data,
      seededBytes(size, 2 * i + 3),
      `a new version after ${what} (v${next.version})`,
    );
  }
}

export const corruptionLaws = [
  check(
    "corruption",
    "a flipped stored byte anywhere fails every get of that version with corrupt_artifact; the name's other versions, listing, deletion and new puts are unaffected",
    damagedBytesFailEveryWholeRead,
    { needs: ["corrupt"] },
  ),
];
