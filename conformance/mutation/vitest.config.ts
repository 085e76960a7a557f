import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// The kits as the only test suite of a mutation run (scripts/mutation.mjs). StrykerJS
// mutates TypeScript sources, so every @artifact-kit/* import resolves to its package's
// src/ rather than its built dist/: the export's dist path, with src for dist and .ts for .js.
// The run's target names its kit file through ARTIFACT_KIT_MUTATION_TESTS.

const packagesDir = fileURLToPath(new URL("../../packages/", import.meta.url));

function sourceOf(specifier: string): string | undefined {
  const match = /^@artifact-kit\/([a-z0-9-]+)(\/[a-z0-9-]+)?$/.exec(specifier);
  if (!match) return undefined;
  const [, pkg, subpath] = match;
  const manifest = JSON.parse(readFileSync(`${packagesDir}${pkg}/package.json`, "utf8"));
  const entry = manifest.exports?.[`.${subpath ?? ""}`]?.default;
  if (typeof entry !== "string") return undefined;
  return `${packagesDir}${pkg}/${entry.replace(/^\.\/dist\//, "src/").replace(/\.js$/, ".ts")}`;
}

const tests = process.env.ARTIFACT_KIT_MUTATION_TESTS;
if (!tests)
  throw new Error("ARTIFACT_KIT_MUTATION_TESTS names the kit file (scripts/mutation.mjs)");

export default defineConfig({
  plugins: [
    { name: "artifact-kit-sources", enforce: "pre", resolveId: (specifier) => sourceOf(specifier) },
  ],
  test: {
    root: fileURLToPath(new URL(".", import.meta.url)),
    // Comma-separated globs: a kit file here and a package's own law files beside it.
    include: tests.split(","),
    testTimeout: 300_000,
  },
});
