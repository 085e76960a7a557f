import {
  type ArtifactServiceConformanceOptions,
  artifactServiceChecks,
  runChecks,
} from "@artifact-kit/core/conformance";
import { fsSubjects } from "@artifact-kit/fs/testing";
import { MemoryArtifactService } from "@artifact-kit/memory";
import { memorySubjects } from "@artifact-kit/memory/testing";
import { afterAll, describe, expect, it } from "vitest";
import { FAULT_MUTANTS, faultyMemorySubject } from "../mutants/faults.js";
import { firstFailure } from "../mutants/first-failure.js";
import { buildFsMutant } from "../mutants/fs/build.js";
import { FS_MUTANTS, SURVIVING_FS_MUTANTS } from "../mutants/fs/patches.js";
import { HANDLE_MUTANTS, sharedStoreSubject } from "../mutants/handles.js";
import { MUTANTS } from "../mutants/index.js";
import { buildObjectStoreMutant } from "../mutants/object-store/build.js";
import {
  OBJECT_STORE_MUTANTS,
  SURVIVING_OBJECT_STORE_MUTANTS,
} from "../mutants/object-store/patches.js";
import { buildPostgresMutant } from "../mutants/postgres/build.js";
import { POSTGRES_MUTANTS } from "../mutants/postgres/patches.js";
import { RUN_STORE_MUTANTS } from "../mutants/run-store/mutants.js";
import { MATRIX_RUNS } from "./adapters.js";
import { matrixPostgresPool } from "./postgres.js";

// The kit is itself tested: each mutant is broken in exactly one way and must fail a check
// at the matrix's settings. A mutant that passes is a bug in the kit. The checks run in the
// kit's order and stop at the first failure; the law that failed is reported at the end
// (it is the "killed by" column of conformance/README.md).

const PATCHED_COPY_LIMIT_MS = 1_200_000;
// Some patched copies break a lock, and a lock's absence shows only when racers meet in its
// window: the race laws run many rounds, yet a quiet machine can miss it in one whole kit run
// (two such postgres copies passed one CI run each on 2026-12-03). As the outside measure
// does, such a copy gets up to three runs of the kit; a copy a law catches at once costs one.
const PATCHED_COPY_RUNS = 3;

const killedBy: [mutant: string, law: string][] = [];
afterAll(() => {
  console.info(killedBy.map(([mutant, law]) => `${mutant} -> ${law}`).join("\n"));
});

async function expectRejected(
  mutant: string,
  options: ArtifactServiceConformanceOptions,
  onlyTheModelCatches = false,
  /** The family of laws that must catch the bug on its own, when only that family can see it. */
  group?: string,
  /** How many runs of the kit the mutant gets: more than one for bugs that only races show. */
  runs = 1,
) {
  // A family named must catch the bug by itself: its laws alone run, so that a broader law
  // that happens to catch the same bug first (linearizability sees many) does not hide
  // whether the family would.
  const checks = artifactServiceChecks(
    group === undefined ? options : { ...options, only: `${group}: ` },
    mutant,
  );
  let failure = await firstFailure(checks);
  for (let run = 1; failure === undefined && run < runs; run++)
    failure = await firstFailure(checks);
  expect(failure, `no check failed for the mutant that ${mutant}`).toBeDefined();
  killedBy.push([mutant, failure?.name ?? ""]);
  // The model runs last: a mutant only it catches passed every fixed law before it.
  if (onlyTheModelCatches) expect(failure?.name, failure?.report).toMatch(/^model: /);
  if (group !== undefined) expect(failure?.name, failure?.report).toMatch(`${group}: `);
}

const memoryOptions = (make: (typeof MUTANTS)[number]["make"]) => ({
  ...memorySubjects(make),
  numRuns: MATRIX_RUNS.memory,
});

describe("the conformance kit rejects every mutant", () => {
  it("has at least forty mutants: at least eight fs and twelve postgres patched copies and eight run stores", () => {
    const total = MUTANTS.length + FS_MUTANTS.length + Object.keys(RUN_STORE_MUTANTS).length;
    expect(total).toBeGreaterThanOrEqual(40);
    expect(FS_MUTANTS.length).toBeGreaterThanOrEqual(8);
    expect(POSTGRES_MUTANTS.length).toBeGreaterThanOrEqual(12);
    expect(Object.keys(RUN_STORE_MUTANTS).length).toBeGreaterThanOrEqual(8);
  });

  it("passes the unbroken memory adapter through the same harness", async () => {
    const checks = artifactServiceChecks(
      memoryOptions((options) => new MemoryArtifactService(options)),
    );
    const failed = (await runChecks(checks)).filter((result) => result.status === "failed");
    expect(failed).toEqual([]);
  });

  for (const mutant of MUTANTS) {
    it(`rejects the mutant that ${mutant.name}`, () =>
      expectRejected(
        mutant.name,
        memoryOptions(mutant.make),
        mutant.onlyTheModelCatches,
        mutant.onlyCaughtBy,
      ));
  }

  it("passes the unbroken memory adapter shared by two handles", async () => {
    // Only the laws that use a second handle: the others see the memory adapter alone.
    const options = { create: sharedStoreSubject(), numRuns: MATRIX_RUNS.memory, only: "handles" };
    const results = await runChecks(artifactServiceChecks(options));
    expect(results.length).toBeGreaterThanOrEqual(4);
    expect(results.filter((result) => result.status !== "passed")).toEqual([]);
  });

  for (const mutant of HANDLE_MUTANTS) {
    it(`rejects the second handle that ${mutant.name}`, () =>
      expectRejected(
        mutant.name,
        { create: sharedStoreSubject(mutant.open), numRuns: MATRIX_RUNS.memory },
        false,
        "handles",
      ));
  }

  it("passes the unbroken memory adapter behind an in-process fault injector", async () => {
    const options = { create: faultyMemorySubject(), numRuns: MATRIX_RUNS.memory, only: "faults" };
    const results = (await runChecks(artifactServiceChecks(options))).filter((result) =>
      result.name.startsWith("faults: "),
    );
    expect(results.map((result) => result.status)).toEqual(["passed"]);
  });

  for (const mutant of FAULT_MUTANTS) {
    it(`rejects the adapter that ${mutant.name}`, () =>
      expectRejected(
        mutant.name,
        { create: faultyMemorySubject(mutant.wrap), numRuns: MATRIX_RUNS.memory },
        false,
        "faults",
      ));
  }

  // A patched copy runs the durable kit up to the first law that fails, which may be one of the
  // last: 30 s on a quiet machine, over 300 s in a CI run at a load of 25. The limit is only
  // for hangs (PATCHED_COPY_LIMIT_MS, well above the worst seen), not a bound on speed.
  for (const spec of FS_MUTANTS) {
    it(
      `rejects the patched fs copy that ${spec.bug}`,
      async () => {
        const Service = await buildFsMutant(spec);
        await expectRejected(
          `fs ${spec.slug}`,
          { ...fsSubjects(Service), numRuns: MATRIX_RUNS.fs },
          false,
          spec.group,
          PATCHED_COPY_RUNS,
        );
      },
      PATCHED_COPY_LIMIT_MS,
    );
  }

  // The shared protocol of gcs, s3 and azure over the object-store package's in-memory
  // bucket: each copy runs only its family's laws (a second or two), and an unpatched copy
  // passes those families, so that what fails is the patch.
  it("passes an unpatched object-store copy in both dialects through the mutants' families", async () => {
    for (const dialect of ["trailer", "header"] as const) {
      const subjects = await buildObjectStoreMutant(
        { slug: `unpatched-${dialect}`, bug: "", patches: [] },
        dialect,
      );
      for (const group of new Set(OBJECT_STORE_MUTANTS.map((spec) => spec.group))) {
        const options = { ...subjects, numRuns: MATRIX_RUNS.objectStore, only: `${group}: ` };
        const failed = (await runChecks(artifactServiceChecks(options))).filter(
          (result) => result.status === "failed",
        );
        expect(failed).toEqual([]);
      }
    }
  });

  for (const spec of OBJECT_STORE_MUTANTS) {
    it(
      `rejects the patched object-store copy (${spec.dialect} dialect) that ${spec.bug}`,
      async () => {
        const subjects = await buildObjectStoreMutant(spec, spec.dialect);
        await expectRejected(
          `object-store ${spec.slug}`,
          { ...subjects, numRuns: MATRIX_RUNS.objectStore },
          false,
          spec.group,
          PATCHED_COPY_RUNS,
        );
      },
      PATCHED_COPY_LIMIT_MS,
    );
  }

  it("still builds the copies no law catches yet: their patches apply to today's source", async () => {
    for (const spec of SURVIVING_OBJECT_STORE_MUTANTS)
      await buildObjectStoreMutant(spec, spec.dialect);
    for (const spec of SURVIVING_FS_MUTANTS) await buildFsMutant(spec);
  });

  for (const spec of POSTGRES_MUTANTS) {
    it(
      `rejects the patched postgres copy that ${spec.bug}`,
      async () => {
        const subjects = await buildPostgresMutant(spec, matrixPostgresPool);
        await expectRejected(
          `postgres ${spec.slug}`,
          { ...subjects, numRuns: MATRIX_RUNS.postgres },
          false,
          spec.group,
          PATCHED_COPY_RUNS,
        );
      },
      PATCHED_COPY_LIMIT_MS,
    );
  }
});
