#!/usr/bin/env node
// Mutation testing with StrykerJS, the conformance kits as the only test suites:
//   npm run mutation -- <target> [--incremental] [--force] [--concurrency N] [--mutate GLOB...]
// One row of TARGETS per target: the sources StrykerJS mutates, the kit file under
// conformance/mutation/ that runs the kit over them, and the TypeScript projects its type
// checker compiles them in. Add a target by adding a row (and its kit file). Reports and the
// incremental file go to .mutation/ (git-ignored). Too long for CI: not in .ci/run.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

const TARGETS = {
  memory: {
    mutate: [
      "packages/memory/src/**/*.ts",
      "!packages/memory/src/testing.ts",
      "packages/core/src/adapter/**/*.ts",
      "packages/core/src/validate.ts",
    ],
    kit: "memory.test.ts",
    projects: ["packages/core", "packages/memory"],
  },
  "run-store": {
    mutate: [
      "packages/run-store/src/**/*.ts",
      "!packages/run-store/src/testing.ts",
      "!packages/run-store/src/index.ts",
    ],
    kit: "run-store.test.ts",
    projects: ["packages/core", "packages/memory", "packages/run-store"],
  },
  effects: {
    mutate: [
      "packages/effects/src/memory-journal.ts",
      "packages/effects/src/journal-base.ts",
      "packages/effects/src/transitions.ts",
      "packages/effects/src/validate.ts",
      "packages/effects/src/reconcile.ts",
      "packages/effects/src/artifact-handler.ts",
      "packages/effects/src/journaled.ts",
    ],
    kit: "effects.test.ts",
    projects: ["packages/core", "packages/memory", "packages/effects"],
  },
  // A kit may be globs (comma-separated) over the package's own law files, relative to
  // conformance/mutation.
  stream: {
    mutate: ["packages/stream/src/buffered.ts"],
    kit: "../../packages/stream/test/buffered-kit.test.ts,../../packages/stream/test/buffered-edges.test.ts",
    projects: ["packages/core", "packages/memory", "packages/stream"],
  },
  sharded: {
    mutate: [
      "packages/sharded/src/**/*.ts",
      "!packages/sharded/src/index.ts",
      "!packages/sharded/src/conformance/**",
    ],
    kit: "sharded.test.ts",
    projects: ["packages/core", "packages/memory", "packages/fs", "packages/sharded"],
  },
};

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    incremental: { type: "boolean", default: false },
    force: { type: "boolean", default: false },
    concurrency: { type: "string", default: "1" },
    mutate: { type: "string", multiple: true },
  },
});
const name = positionals[0];
const target = TARGETS[name];
if (!target) {
  console.error(`usage: npm run mutation -- <${Object.keys(TARGETS).join("|")}> [--incremental]`);
  process.exit(2);
}

// The type checker resolves the projects' imports of each other through their built
// declarations: build them first (turbo's cache makes this free when nothing changed).
const filters = target.projects.map((project) => {
  const manifest = JSON.parse(readFileSync(join(root, project, "package.json"), "utf8"));
  return `--filter=${manifest.name}`;
});
const build = spawnSync(
  process.execPath,
  [join(root, "scripts", "pnpm.mjs"), "exec", "turbo", "run", "build", ...filters],
  { cwd: root, stdio: "inherit" },
);
if (build.status !== 0) process.exit(build.status ?? 1);

// The type checker compiles only the target's projects, from a tsconfig written for the run.
const out = join(root, ".mutation");
mkdirSync(out, { recursive: true });
const tsconfig = join(out, `${name}.tsconfig.json`);
writeFileSync(
  tsconfig,
  JSON.stringify({ files: [], references: target.projects.map((p) => ({ path: `../${p}` })) }),
);

// StrykerJS and its plugins are devDependencies of the conformance package; its plugin
// lookup does not see pnpm's layout, so every plugin is named by its resolved path.
const requireFromKit = createRequire(join(root, "conformance", "package.json"));
const plugin = (id) => requireFromKit.resolve(id);
const { Stryker } = await import(pathToFileURL(plugin("@stryker-mutator/core")).href);

process.chdir(root);
process.env.ARTIFACT_KIT_MUTATION_TESTS = target.kit;
const stryker = new Stryker({
  mutate: values.mutate ?? target.mutate,
  // In place: the sources stay inside the pnpm workspace, whose links a sandbox copy breaks.
  // StrykerJS restores every file when the run ends or is interrupted.
  inPlace: true,
  testRunner: "vitest",
  vitest: { configFile: "conformance/mutation/vitest.config.ts", related: false },
  checkers: ["typescript"],
  tsconfigFile: tsconfig,
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  plugins: [
    plugin("@stryker-mutator/vitest-runner"),
    plugin("@stryker-mutator/typescript-checker"),
  ],
  coverageAnalysis: "perTest",
  concurrency: Number(values.concurrency),
  incremental: values.incremental,
  force: values.force,
  incrementalFile: join(".mutation", `${name}.incremental.json`),
  reporters: ["clear-text", "progress", "json"],
  jsonReporter: { fileName: join(".mutation", `${name}.report.json`) },
  tempDirName: join(".mutation", "tmp"),
  cleanTempDir: "always",
});
const results = await stryker.runMutationTest();
const counts = {};
for (const mutant of results) counts[mutant.status] = (counts[mutant.status] ?? 0) + 1;
const killed = (counts.Killed ?? 0) + (counts.Timeout ?? 0);
const valid = killed + (counts.Survived ?? 0) + (counts.NoCoverage ?? 0);
console.info(`${name}: ${JSON.stringify(counts)}; score ${((100 * killed) / valid).toFixed(2)}%`);
