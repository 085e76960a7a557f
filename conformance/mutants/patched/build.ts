import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

// Patched copies of a real adapter: each mutant replaces exact source text in files of
// packages/<package>/src, and the copy is imported in place of the package. A patch whose
// text is no longer there fails the build of the copy loudly, so the mutants follow the
// adapter as it changes.

export interface SourcePatch {
  /** The file under packages/<package>/src. */
  file: string;
  /** Exact text in that file. */
  find: string;
  replace: string;
  /** Replace every occurrence (default: the text must occur exactly once). */
  all?: boolean;
}

export interface PatchedMutantSpec {
  /** Also the directory name of the patched copy. */
  slug: string;
  bug: string;
  patches: readonly SourcePatch[];
  /**
   * The family of laws that must catch the bug by itself ("state", "idempotency"): only its
   * laws run over the copy, which keeps a copy of a durable adapter cheap. Without it the
   * whole kit runs up to the first law that fails.
   */
  group?: string;
}

const here = dirname(fileURLToPath(import.meta.url));
/** Git-ignored: rebuilt from the adapter's current source on every run. */
const builds = join(here, ".build");

function applyPatch(text: string, patch: SourcePatch, where: string, patches: string): string {
  const count = text.split(patch.find).length - 1;
  if (count === 0 || (!patch.all && count !== 1)) {
    throw new Error(
      `${where}: expected ${patch.all ? "some" : "exactly one"} ${JSON.stringify(patch.find)}, found ${count}; update ${patches}`,
    );
  }
  return text.split(patch.find).join(patch.replace);
}

/**
 * Copies the files of packages/`pkg`/src (not its sub-directories) with the mutant's patches
 * applied (every patch must apply) and imports the copy's `entry` module. `patches` names the
 * file that declares them, for the message of a patch gone stale. `inPackage` builds the copy
 * inside the package (its git-ignored `.mutants/`), for a package whose own dependencies this
 * one does not have (the sharded router's queue).
 */
export async function importPatchedCopy(
  pkg: string,
  spec: PatchedMutantSpec,
  entry: string,
  patches: string,
  inPackage = false,
): Promise<unknown> {
  const packageDir = join(here, "../../../packages", pkg);
  const source = join(packageDir, "src");
  const target = inPackage ? join(packageDir, ".mutants", spec.slug) : join(builds, pkg, spec.slug);
  await rm(target, { recursive: true, force: true });
  await mkdir(target, { recursive: true });
  const files = (await readdir(source, { withFileTypes: true }))
    .filter((dirent) => dirent.isFile())
    .map((dirent) => dirent.name);
  for (const patch of spec.patches) {
    if (!files.includes(patch.file)) {
      throw new Error(
        `${pkg} mutant ${spec.slug}: no ${patch.file} in ${source}; update ${patches}`,
      );
    }
  }
  for (const file of files) {
    let text = await readFile(join(source, file), "utf8");
    for (const patch of spec.patches.filter((each) => each.file === file)) {
      text = applyPatch(text, patch, `${pkg} mutant ${spec.slug} (${file})`, patches);
    }
    await writeFile(join(target, file), text);
  }
  return import(join(target, entry));
}
