import { readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ArtifactServiceConformanceOptions } from "@artifact-kit/core/conformance";
import { importPatchedCopy, type PatchedMutantSpec } from "../patched/build.js";

const here = dirname(fileURLToPath(import.meta.url));
const packageDir = join(here, "../../../packages/object-store");
const support = join(packageDir, "test/support");
// Inside the package (its git-ignored .mutants/), where its own dependencies (p-limit) resolve.
const builds = join(packageDir, ".mutants");

type Subjects = Pick<ArtifactServiceConformanceOptions, "create" | "createBounded">;

/**
 * Copies the object-store protocol's source with the mutant's patches applied, and gives the
 * package's own conformance subjects over the copy: its in-memory bucket, in the dialect
 * named (trailer: deletion markers and record chunks; header: allocation flags). The two test
 * support files are copied beside the source, their imports of `../../src/` pointed at it,
 * so the whole protocol runs the kit without an emulator.
 */
export async function buildObjectStoreMutant(
  spec: PatchedMutantSpec,
  dialect: "trailer" | "header",
): Promise<Subjects> {
  await importPatchedCopy(
    "object-store",
    spec,
    "index.ts",
    "conformance/mutants/object-store/patches.ts",
    true,
  );
  for (const file of ["memory-bucket.ts", "faulty-bucket.ts", "subjects.ts"]) {
    const text = await readFile(join(support, file), "utf8");
    const local = text.split("../../src/index.js").join("./index.js");
    await writeFile(join(builds, spec.slug, file), local);
  }
  const module = (await import(join(builds, spec.slug, "subjects.ts"))) as {
    memorySubjects: (which: "trailer" | "header", options: { faults: boolean }) => Subjects;
  };
  return module.memorySubjects(dialect, { faults: true });
}
