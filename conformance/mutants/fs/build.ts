import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FsArtifactService } from "@artifact-kit/fs";
import type { FsMutantSpec, SourcePatch } from "./patches.js";

const here = dirname(fileURLToPath(import.meta.url));
const source = join(here, "../../../packages/fs/src");
/** Git-ignored: rebuilt from the adapter's current source on every run. */
const builds = join(here, ".build");

function applyPatch(text: string, patch: SourcePatch, slug: string, file: string): string {
  const count = text.split(patch.find).length - 1;
  if (count === 0 || (!patch.all && count !== 1)) {
    throw new Error(
      `fs mutant ${slug}: expected ${patch.all ? "some" : "exactly one"} ${JSON.stringify(patch.find)} in ${file}, found ${count}; update conformance/mutants/fs/patches.ts`,
    );
  }
  return text.split(patch.find).join(patch.replace);
}

/** Copies the fs adapter's source with the mutant's patches applied and imports it. */
export async function buildFsMutant(spec: FsMutantSpec): Promise<typeof FsArtifactService> {
  const target = join(builds, spec.slug);
  await mkdir(target, { recursive: true });
  for (const file of await readdir(source)) {
    let text = await readFile(join(source, file), "utf8");
    for (const patch of spec.patches) {
      if ((patch.file ?? "service.ts") === file) text = applyPatch(text, patch, spec.slug, file);
    }
    await writeFile(join(target, file), text);
  }
  const module = (await import(join(target, "index.ts"))) as {
    FsArtifactService: typeof FsArtifactService;
  };
  return module.FsArtifactService;
}
