import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { ArtifactServiceRunStore, InMemoryRunStore } from "@artifact-kit/run-store";
import { importPatchedCopy, type PatchedMutantSpec } from "../patched/build.js";

const here = dirname(fileURLToPath(import.meta.url));
const runStorePackage = join(here, "../../../packages/run-store/package.json");

/**
 * The copy lives outside the run-store package, where its dependency async-mutex does not
 * resolve: every copy imports it by the package's own resolved path.
 */
function mutexImport(): PatchedMutantSpec["patches"][number] {
  const main = createRequire(runStorePackage).resolve("async-mutex");
  const esm = pathToFileURL(join(dirname(dirname(main)), "index.mjs")).href;
  return { file: "service-store.ts", find: 'from "async-mutex"', replace: `from "${esm}"` };
}

export interface RunStoreCopy {
  InMemoryRunStore: typeof InMemoryRunStore;
  ArtifactServiceRunStore: typeof ArtifactServiceRunStore;
}

/** Copies the run-store package's source with the mutant's patches applied and imports it. */
export async function buildRunStoreMutant(spec: PatchedMutantSpec): Promise<RunStoreCopy> {
  const patched = { ...spec, patches: [...spec.patches, mutexImport()] };
  return (await importPatchedCopy(
    "run-store",
    patched,
    "index.ts",
    "conformance/mutants/run-store/patches.ts",
  )) as RunStoreCopy;
}
