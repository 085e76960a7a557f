import type { PostgresSubjects } from "@artifact-kit/postgres/testing";
import type { Pool } from "pg";
import { importPatchedCopy, type PatchedMutantSpec } from "../patched/build.js";

/**
 * Copies the postgres adapter's source with the mutant's patches applied, and gives the
 * copy's own conformance subjects over pools from `newPool` (each subject migrates a schema
 * of its own, so a patched migration builds that schema as the mutant would).
 */
export async function buildPostgresMutant(
  spec: PatchedMutantSpec,
  newPool: () => Pool,
): Promise<PostgresSubjects> {
  const module = (await importPatchedCopy(
    "postgres",
    spec,
    "testing.ts",
    "conformance/mutants/postgres/patches.ts",
  )) as { postgresSubjects: (newPool: () => Pool) => PostgresSubjects };
  return module.postgresSubjects(newPool);
}
