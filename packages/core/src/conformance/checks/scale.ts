import fc from "fast-check";
import type { Scope } from "../../types.js";
import { freshScope } from "../arbitraries.js";
import { type CheckOutcome, check, type LawContext, skip } from "../check.js";
import { expectEqual } from "../expect.js";
import { byUtf8Bytes } from "../model.js";
import {
  expectLegacyList,
  expectNamesAtEverySize,
  expectPageAfter,
  expectVersionsAtEverySize,
  fill,
  ONE_NAME_CONCURRENCY,
  pageSizes,
  roomInOneScope,
  SCALE_COUNT,
  sampledSizesArb,
  scaleNames,
  shuffled,
} from "../scale.js";
import { reopenHolder, type ServiceHolder } from "../subject.js";

// Scale: a scope of more than a thousand names, put in any order, and one name's versions
// over several pages, listed at page sizes sampled from 1 to maxPageLimit; complete and in
// order after puts, after deletes (whole names, latest, by number) and, for durable subjects,
// after a reopen, including a listing begun before the reopen and continued after it.

const data = (i: number) => Uint8Array.of(i & 0xff);

// After a reopen the listings are read at three sizes only: the reopen is what is under test.

interface ScaleRun {
  count: number;
  salt: number;
  sampled: number[];
}

const scaleRunArb = (maxPageLimit: number, room: number): fc.Arbitrary<ScaleRun> =>
  fc.record({
    count: fc.integer({ min: SCALE_COUNT.min, max: Math.min(SCALE_COUNT.max, room) }),
    salt: fc.nat(),
    sampled: sampledSizesArb(maxPageLimit),
  });

/** Few runs: each fills a fresh subject with more than a thousand artifacts. */
const FEW = { scale: 0.02, min: 1 } as const;

function roomForScale(context: LawContext, oneName: boolean): number | CheckOutcome {
  const room = roomInOneScope(context.service, oneName);
  if (room < SCALE_COUNT.min) {
    return skip(
      `the declared bounds hold ${room} artifacts in one scope, under ${SCALE_COUNT.min}`,
    );
  }
  return room;
}

/** Lists `names` at every size, a page after a few cursors, and the legacy list. */
async function expectScopeListing(
  holder: ServiceHolder,
  scope: Scope,
  versions: ReadonlyMap<string, number[]>,
  sizes: readonly number[],
  what: string,
) {
  const live = [...versions.keys()];
  await expectNamesAtEverySize(holder.service, scope, live, sizes, what);
  const sorted = [...live].sort(byUtf8Bytes);
  for (const at of [255, 256, 1023, 1024, sorted.length - 2]) {
    const cursor = sorted[at];
    if (cursor === undefined) continue;
    await expectPageAfter(holder.service, scope, live, cursor, 3, what);
    // A cursor that was never a name sorts between two live ones.
    await expectPageAfter(holder.service, scope, live, `${cursor}\u0001`, 2, what);
  }
  const expected = sorted.flatMap((name) =>
    (versions.get(name) ?? []).map((version) => [name, version] as [string, number]),
  );
  await expectLegacyList(holder.service, scope, expected, what);
}

/** listNames over more than a thousand names is complete and ordered at every page size. */
async function thousandsOfNames(context: LawContext) {
  const room = roomForScale(context, false);
  if (typeof room !== "number") return room;
  const { maxPageLimit } = context.service.capabilities().pagination;
  await context.property(
    [scaleRunArb(maxPageLimit, room)],
    ({ count, salt, sampled }) =>
      context.fresh(async (holder) => {
        const scope = freshScope("scale-names");
        const names = scaleNames(count, salt);
        const versions = new Map<string, number[]>();
        await fill(shuffled(names, salt), async (name, i) => {
          const meta = await holder.service.put(scope, name, data(i));
          versions.set(name, [meta.version]);
        });
        const sizes = pageSizes(maxPageLimit, sampled);
        await expectScopeListing(holder, scope, versions, sizes, `${count} names`);
        // Whole names go (every third), and a few others gain a version then lose it.
        await fill(names, async (name, i) => {
          if (i % 3 === 0) {
            await holder.service.delete(scope, name, "all");
            versions.delete(name);
          } else if (i % 12 === 1) {
            await holder.service.put(scope, name, data(i + 1));
            await holder.service.delete(scope, name, "latest");
          }
        });
        await expectScopeListing(holder, scope, versions, sizes, `${count} names, a third deleted`);
        if (!holder.subject.reopen) return;
        const limit = sizes[Math.floor(sizes.length / 2)] ?? 1;
        const first = await holder.service.listNames(scope, { limit });
        await reopenHolder(holder);
        const few = [sizes[0] ?? 1, limit, maxPageLimit];
        await expectScopeListing(holder, scope, versions, few, `${count} names after reopen`);
        if (first.nextCursor !== undefined) {
          await expectPageAfter(
            holder.service,
            scope,
            [...versions.keys()],
            first.nextCursor,
            limit,
            "the second page of a listing begun before the reopen",
          );
        }
      }),
    FEW,
  );
  return undefined;
}

/** One name's versions over several pages: ascending and complete at every page size. */
async function versionsOverSeveralPages(context: LawContext) {
  const room = roomForScale(context, true);
  if (typeof room !== "number") return room;
  const { maxPageLimit } = context.service.capabilities().pagination;
  await context.property(
    [scaleRunArb(maxPageLimit, room)],
    ({ count, salt, sampled }) =>
      context.fresh(async (holder) => {
        const scope = freshScope("scale-versions");
        const name = scaleNames(1, salt)[0] as string;
        // Concurrent puts of one name: each gets its own version, in any order.
        const indexes = Array.from({ length: count }, (_, i) => i);
        const metas = await fill(
          indexes,
          (i) => holder.service.put(scope, name, data(i)),
          ONE_NAME_CONCURRENCY,
        );
        let live = metas.map((meta) => meta.version).sort((a, b) => a - b);
        const sizes = pageSizes(maxPageLimit, sampled);
        const what = `${count} versions of ${JSON.stringify(name)}`;
        await expectVersionsAtEverySize(holder.service, scope, name, live, sizes, what);
        // Every fourth version by number, then the latest twice.
        const doomed = live.filter((_, i) => i % 4 === salt % 4);
        await fill(doomed, (version) => holder.service.delete(scope, name, version));
        live = live.filter((_, i) => i % 4 !== salt % 4);
        for (let i = 0; i < 2; i++) {
          await holder.service.delete(scope, name, "latest");
          live.pop();
        }
        const after = `${what}, a quarter deleted`;
        await expectVersionsAtEverySize(holder.service, scope, name, live, sizes, after);
        expectEqual(
          (await holder.service.head(scope, name)).version,
          live.at(-1),
          `${after}: latest`,
        );
        await expectLegacyList(
          holder.service,
          scope,
          live.map((version) => [name, version]),
          after,
        );
        if (!holder.subject.reopen) return;
        const limit = sizes[Math.floor(sizes.length / 2)] ?? 1;
        const first = await holder.service.listVersions(scope, name, { limit });
        await reopenHolder(holder);
        await expectVersionsAtEverySize(
          holder.service,
          scope,
          name,
          live,
          sizes,
          `${after}, reopened`,
        );
        if (first.nextCursor !== undefined) {
          const page = await holder.service.listVersions(scope, name, {
            limit,
            cursor: first.nextCursor,
          });
          const cursor = first.nextCursor;
          expectEqual(
            page.items.map((meta) => meta.version),
            live.filter((version) => version > cursor).slice(0, limit),
            "the second page of a version listing begun before the reopen",
          );
        }
      }),
    FEW,
  );
  return undefined;
}

export const scaleLaws = [
  check(
    "scale",
    "listNames over 1,100+ names put in any order is complete and in UTF-8 order at page sizes from 1 to maxPageLimit (and maxPageLimit when no limit is given), under prefixes, after deletes and across a reopen",
    thousandsOfNames,
  ),
  check(
    "scale",
    "listVersions over 1,100+ versions of one name is complete and ascending at page sizes from 1 to maxPageLimit (and maxPageLimit when no limit is given), after deletes and across a reopen",
    versionsOverSeveralPages,
  ),
];
