import { artifactServiceChecks, runChecks } from "@artifact-kit/core/conformance";
import { describe, expect, it } from "vitest";
import { buildFsMutant } from "../mutants/fs/build.js";
import { SURVIVING_FS_MUTANTS } from "../mutants/fs/patches.js";
import { buildObjectStoreMutant } from "../mutants/object-store/build.js";
import {
  OBJECT_STORE_MUTANTS,
  SURVIVING_OBJECT_STORE_MUTANTS,
} from "../mutants/object-store/patches.js";
import { buildPostgresMutant } from "../mutants/postgres/build.js";
import { POSTGRES_MUTANTS } from "../mutants/postgres/patches.js";
import { MATRIX_RUNS } from "./adapters.js";
import { matrixPostgresPool } from "./postgres.js";
import { expectRejected, PATCHED_COPY_LIMIT_MS } from "./rejects.js";

// Patched copies of the real postgres and object-store adapters, each broken in exactly one
// way, must each fail a check at the matrix's settings (see ./rejects.ts); the fs copies are
// in ./patched-fs.test.ts and the memory mutants in ./mutants.test.ts.

describe("the conformance kit rejects every patched copy of the postgres and object-store adapters", () => {
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
        );
      },
      PATCHED_COPY_LIMIT_MS,
    );
  }
});
