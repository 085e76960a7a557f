import fc from "fast-check";
import { isArtifactError } from "../../errors.js";
import type { ArtifactService } from "../../types.js";
import { freshScope } from "../arbitraries.js";
import { check, type LawContext } from "../check.js";
import { expectEqual, expectTrue } from "../expect.js";
import { readAllNames, readAllVersions } from "../observe.js";

const NAME = "contended";

/** Payloads that identify their writer in every byte, so a torn read cannot pass for one. */
function payload(writer: number, size: number): Uint8Array {
  return new Uint8Array(size).fill(writer + 1);
}

/** Bytes of exactly one writer's payload, and that writer had started: never torn. */
function expectOneWriter(
  data: Uint8Array,
  size: number,
  started: ReadonlySet<number>,
  what: string,
): void {
  const writer = data[0];
  expectTrue(data.byteLength === size, `${what}: read ${data.byteLength} bytes of ${size}`);
  expectTrue(
    writer !== undefined && started.has(writer),
    `${what}: bytes from no writer that started`,
  );
  expectTrue(
    data.every((byte) => byte === writer),
    `${what}: partial or mixed bytes`,
  );
}

/** 16 concurrent puts to one name all succeed with distinct versions, none lost; 16 new names too. */
async function parallelPuts({ service }: LawContext) {
  const scope = freshScope("parallel");
  const writers = Array.from({ length: 16 }, (_, i) => i);
  const metas = await Promise.all(
    writers.map((i) => service.put(scope, NAME, payload(i, 4096 + i))),
  );
  const versions = metas.map((m) => m.version);
  expectEqual(new Set(versions).size, versions.length, `distinct versions ${versions.join(",")}`);
  const listed = (await readAllVersions(service, scope, NAME)).map((m) => m.version);
  expectEqual(
    listed,
    [...versions].sort((a, b) => a - b),
    "every put is listed",
  );
  for (const [i, meta] of metas.entries()) {
    const artifact = await service.get(scope, NAME, { version: meta.version });
    expectTrue(
      Buffer.from(artifact.data).equals(Buffer.from(payload(i, 4096 + i))),
      `writer ${i}'s bytes`,
    );
  }
  // New names at once into one new scope: an index of names that each put reads, extends
  // and writes back (a manifest object, a cached directory listing) loses all but one.
  const fresh = freshScope("parallel-names");
  const names = writers.map((i) => `${NAME}-${String(i).padStart(2, "0")}`);
  await Promise.all(names.map((name, i) => service.put(fresh, name, payload(i, 16))));
  expectEqual(await readAllNames(service, fresh), names, "every new name put at once is listed");
}

type RaceOp = "put" | "get" | "delete";

async function interleaved(
  service: ArtifactService,
  scheduler: fc.Scheduler,
  ops: RaceOp[],
  size: number,
) {
  const scope = freshScope("interleaved");
  const first = await service.put(scope, NAME, payload(0, size));
  const started = new Set([1]);
  const writerOf = new Map([[first.version, 1]]);
  let deleted = 0;
  const outcomes = ops.map((op, i) =>
    scheduler.schedule(Promise.resolve(op), `${op} #${i}`).then(async () => {
      if (op === "put") {
        const data = payload(i + 1, size);
        started.add(i + 2);
        const meta = await service.put(scope, NAME, data);
        expectTrue(!writerOf.has(meta.version), `version ${meta.version} allocated twice`);
        writerOf.set(meta.version, i + 2);
        return;
      }
      try {
        if (op === "get")
          expectOneWriter((await service.get(scope, NAME)).data, size, started, `get #${i}`);
        else {
          await service.delete(scope, NAME, "latest");
          deleted += 1;
        }
      } catch (error) {
        if (!isArtifactError(error, "not_found")) throw error;
      }
    }),
  );
  await scheduler.waitAll();
  await Promise.all(outcomes);
  const live = await readAllVersions(service, scope, NAME);
  expectEqual(live.length, writerOf.size - deleted, "live versions = puts - successful deletes");
  for (const meta of live) {
    const { data } = await service.get(scope, NAME, { version: meta.version });
    expectOneWriter(
      data,
      size,
      new Set([writerOf.get(meta.version) ?? -1]),
      `version ${meta.version}`,
    );
  }
}

/** Interleaved puts, gets and deletes on one name keep versions distinct and reads whole. */
async function scheduledRaces({ service, property }: LawContext) {
  await property(
    [
      fc.scheduler(),
      fc.array(fc.constantFrom<RaceOp>("put", "put", "get", "delete"), {
        minLength: 2,
        maxLength: 8,
      }),
      fc.constantFrom(1, 1024, 65_536),
    ],
    (scheduler, ops, size) => interleaved(service, scheduler, ops, size),
    { scale: 1 / 4, min: 10 },
  );
}

export const raceLaws = [
  check(
    "races",
    "16 concurrent puts to one name all succeed with distinct versions, none lost; 16 concurrent puts of new names into one new scope are all listed",
    parallelPuts,
  ),
  check(
    "races",
    "interleaved puts, gets and deletes on one name keep versions distinct and reads whole",
    scheduledRaces,
  ),
];
