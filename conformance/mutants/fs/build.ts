import type { FsArtifactService } from "@artifact-kit/fs";
import { importPatchedCopy, type PatchedMutantSpec } from "../patched/build.js";

/** Copies the fs adapter's source with the mutant's patches applied and imports it. */
export async function buildFsMutant(spec: PatchedMutantSpec): Promise<typeof FsArtifactService> {
  const module = (await importPatchedCopy(
    "fs",
    spec,
    "index.ts",
    "conformance/mutants/fs/patches.ts",
  )) as { FsArtifactService: typeof FsArtifactService };
  return module.FsArtifactService;
}
