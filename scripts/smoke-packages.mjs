#!/usr/bin/env node
// Pick-and-install proof: each publishable package is packed, installed from its tarball
// into a fresh project outside the workspace with only its declared dependencies, then a
// small program (scripts/smoke/<package>.ts) is type-checked with the oldest TypeScript we
// claim and with 7, and run on every supported Node. Then every README's ```ts snippets are
// type-checked, and run, in a fresh project that installs exactly the README's install line
// (see readme-snippets.mjs), and every README's ```sh session blocks run in order as one
// bash session in a scratch directory (see readme-sessions.mjs). Last, the third-party
// adapter example runs the conformance kit against the packed core.
import { execFile, execFileSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { promisify } from "node:util";
import { proveReadmeSessions } from "./readme-sessions.mjs";
import { proveReadmeSnippets } from "./readme-snippets.mjs";

const root = resolve(import.meta.dirname, "..");
const OLDEST_TYPESCRIPT = "5.4.5";
/** @google-cloud/storage's own declarations use generic typed arrays, new in TypeScript 5.7. */
const OLDEST_TYPESCRIPT_FOR_GCS = "5.7.3";
const ALL_NODES = ["20", "22", "24", "26"];
const REPOSITORY = "https://github.com/artifact-kit/artifact-kit";
/** pg's protocol declarations use the generic Buffer of @types/node, which needs TypeScript 5.7. */
const OLDEST_TYPESCRIPT_FOR_PG = "5.7.3";
/**
 * Peers a user installs beside a package, and the Node versions each set is proven on:
 * @google-cloud/storage 8 needs Node 22, so 7.22 is the one proven on Node 20. A peer named
 * "workspace" is a sibling artifact-kit package, installed from its tarball.
 */
const VARIANTS = {
  // The stream layer needs an adapter with native transfer: memory, from its own tarball.
  stream: [
    {
      label: "with memory",
      peers: { "@artifact-kit/memory": "workspace" },
      nodes: ALL_NODES,
      oldestTypeScript: OLDEST_TYPESCRIPT,
    },
  ],
  // The journal's README and smoke program write through the memory adapter.
  effects: [
    {
      label: "with memory",
      peers: { "@artifact-kit/memory": "workspace" },
      nodes: ALL_NODES,
      oldestTypeScript: OLDEST_TYPESCRIPT,
    },
  ],
  adk: [
    {
      label: "@google/adk 2 and the memory adapter",
      peers: { "@google/adk": "^2.0.0", "@artifact-kit/memory": "workspace" },
      nodes: ALL_NODES,
      oldestTypeScript: OLDEST_TYPESCRIPT,
      // @google/adk's own declarations import its optional peers (express, MCP, OpenAPI
      // types, ...), so no project that does not install them all can check them.
      skipLibCheck: true,
    },
  ],
  postgres: [
    {
      label: "pg 8",
      peers: { pg: "^8.0.0", "@types/pg": "^8.0.0" },
      nodes: ALL_NODES,
      oldestTypeScript: OLDEST_TYPESCRIPT_FOR_PG,
    },
  ],
  // The OpenTelemetry API is the peer; the SDK is what an application brings to record.
  otel: [
    {
      label: "@opentelemetry/api 1.9, the 2.x trace SDK and the memory adapter",
      peers: {
        "@opentelemetry/api": "^1.9.0",
        "@opentelemetry/sdk-trace-base": "^2.12.1",
        "@artifact-kit/memory": "workspace",
      },
      nodes: ALL_NODES,
      oldestTypeScript: OLDEST_TYPESCRIPT,
    },
  ],
  gcs: [
    {
      label: "storage 7.22",
      peers: { "@google-cloud/storage": "7.22.x" },
      nodes: ["20"],
      oldestTypeScript: OLDEST_TYPESCRIPT_FOR_GCS,
    },
    {
      label: "storage 8",
      peers: { "@google-cloud/storage": "^8.0.0" },
      nodes: ["22", "24", "26"],
      oldestTypeScript: OLDEST_TYPESCRIPT_FOR_GCS,
    },
  ],
  s3: [
    {
      label: "@aws-sdk/client-s3 3",
      peers: { "@aws-sdk/client-s3": "^3.700.0" },
      nodes: ALL_NODES,
      oldestTypeScript: OLDEST_TYPESCRIPT,
    },
  ],
  azure: [
    {
      label: "@azure/storage-blob 12",
      peers: { "@azure/storage-blob": "^12.34.0" },
      nodes: ALL_NODES,
      oldestTypeScript: OLDEST_TYPESCRIPT,
    },
  ],
};
const DEFAULT_VARIANTS = [
  { label: "", peers: {}, nodes: ALL_NODES, oldestTypeScript: OLDEST_TYPESCRIPT },
];

const work = mkdtempSync(join(tmpdir(), "artifact-kit-smoke-"));
const started = Date.now();
let failures = 0;

/**
 * Runs one step and records its outcome (and what a program said) in `log`, the lines of a
 * project printed together when it is done, or prints it at once without one; resolves to
 * whether it passed.
 */
async function step(label, action, log = undefined) {
  const t0 = Date.now();
  const lines = [];
  try {
    const output = await action();
    const said = typeof output === "string" && output.trim() ? `: ${output.trim()}` : "";
    lines.push(`  ${label} … ok (${((Date.now() - t0) / 1000).toFixed(1)}s)${said}`);
    return true;
  } catch (error) {
    failures += 1;
    lines.push(
      `  ${label} … FAILED`,
      String(error.stdout ?? ""),
      String(error.stderr ?? error.message),
    );
    return false;
  } finally {
    if (log) log.push(...lines);
    else console.log(lines.join("\n"));
  }
}

/**
 * The smoke programs get the emulator's endpoint under names the GCS client ignores: the
 * smoke programs' own, and the one the gcs README's emulator recipe exports.
 */
function programEnvironment() {
  const { STORAGE_EMULATOR_HOST, ...env } = process.env;
  return STORAGE_EMULATOR_HOST
    ? {
        ...env,
        ARTIFACT_KIT_GCS_ENDPOINT: STORAGE_EMULATOR_HOST,
        GCS_EMULATOR_ENDPOINT: STORAGE_EMULATOR_HOST,
      }
    : env;
}

const run = (command, args, cwd) =>
  execFileSync(command, args, { cwd, env: programEnvironment(), stdio: "pipe", encoding: "utf8" });
/** `run` without blocking: the smoke projects are proven a few at a time. */
const runAsync = (command, args, cwd) =>
  promisify(execFile)(command, args, {
    cwd,
    env: programEnvironment(),
    encoding: "utf8",
    maxBuffer: 64 * 2 ** 20,
  }).then(({ stdout }) => stdout);

/**
 * The node binary of each Node version the programs run on: this one, and every other fetched
 * once by npx (into its cache) and run directly, which spares a second of npx per program run.
 * One at a time: two fetches of one Node into npx's cache collide.
 */
const nodeBinaries = Object.fromEntries(
  ALL_NODES.map((version) => [
    version,
    version === process.versions.node.split(".")[0]
      ? process.execPath
      : run("npx", ["-y", `node@${version}`, "-p", "process.execPath"], tmpdir()).trim(),
  ]),
);

const publishable = readdirSync(join(root, "packages"))
  .map((dir) => ({
    dir,
    manifest: JSON.parse(readFileSync(join(root, "packages", dir, "package.json"), "utf8")),
  }))
  .filter(({ manifest }) => !manifest.private);

// `node scripts/smoke-packages.mjs fs cli` proves those packages only (all are packed);
// `--readmes-only` skips the smoke programs and proves the README snippets alone.
const readmesOnly = process.argv.includes("--readmes-only");
const only = process.argv.slice(2).filter((arg) => !arg.startsWith("--"));
const selected = publishable.filter(({ dir }) => only.length === 0 || only.includes(dir));

console.log(`Packing ${publishable.length} packages into ${work}`);
const tarballs = {};
for (const { dir, manifest } of publishable) {
  await step(`${manifest.name}: pack, and ship no tests`, () => {
    const before = new Set(readdirSync(work));
    run(
      "node",
      [join(root, "scripts/pnpm.mjs"), "pack", "--pack-destination", work],
      join(root, "packages", dir),
    );
    const tarball = readdirSync(work).find((file) => file.endsWith(".tgz") && !before.has(file));
    if (!tarball) throw new Error("pnpm pack produced no tarball");
    tarballs[manifest.name] = join(work, tarball);
    const shipped = run("tar", ["-tzf", tarballs[manifest.name]], work).split("\n");
    const stray = shipped.filter((f) =>
      /(^|\/)(test|tests|__tests__)\/|\.test\.[cm]?[jt]s$|\.tsbuildinfo$/.test(f),
    );
    if (stray.length > 0) throw new Error(`the tarball ships test files: ${stray.join(", ")}`);
  });
  await step(`${manifest.name}: LICENSE, links, files entries and source maps`, () =>
    checkPackageHygiene(dir, manifest, tarballs[manifest.name]),
  );
}

/**
 * What a published package owes its users beyond code: the license text, where its source
 * and issues live, no `files` entry for a missing file, and no source map pointing at a
 * source that is not shipped.
 */
function checkPackageHygiene(dir, manifest, tarball) {
  const shipped = new Set(
    run("tar", ["-tzf", tarball], work)
      .split("\n")
      .filter(Boolean)
      .map((file) => file.replace(/^package\//, "")),
  );
  const problems = [];
  if (!shipped.has("LICENSE")) problems.push("no LICENSE in the tarball");
  const repository = manifest.repository ?? {};
  if (repository.url !== `git+${REPOSITORY}.git` || repository.directory !== `packages/${dir}`) {
    problems.push(`repository must be { url: git+${REPOSITORY}.git, directory: packages/${dir} }`);
  }
  if (manifest.homepage !== `${REPOSITORY}/tree/main/packages/${dir}#readme`) {
    problems.push("homepage must be the package's folder on GitHub");
  }
  if (manifest.bugs?.url !== `${REPOSITORY}/issues`) problems.push("bugs must be the issues page");
  for (const entry of manifest.files ?? []) {
    if (!entry.startsWith("!") && !existsSync(join(root, "packages", dir, entry))) {
      problems.push(`files names ${entry}, which does not exist`);
    }
  }
  for (const map of [...shipped].filter((file) => file.endsWith(".map"))) {
    const extracted = run("tar", ["-xzOf", tarball, `package/${map}`], work);
    for (const source of JSON.parse(extracted).sources ?? []) {
      const shippedSource = join(dirname(map), source);
      if (!shipped.has(shippedSource)) problems.push(`${map} points at ${source}, not shipped`);
    }
  }
  if (problems.length > 0) throw new Error(problems.join("\n"));
}

const fileSpec = (name) => `file:${tarballs[name]}`;
const artifactKitOverrides = (except = undefined) =>
  Object.fromEntries(
    Object.keys(tarballs)
      .filter((name) => name !== except)
      .map((name) => [name, fileSpec(name)]),
  );

const TSCONFIG = {
  compilerOptions: {
    target: "ES2022",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    types: ["node"],
    strict: true,
    skipLibCheck: false,
    outDir: "dist",
    rootDir: "src",
  },
  include: ["src"],
};

/** Installs the package from its tarball beside `peers` and compiles its smoke program. */
async function prepareProject(project, dir, manifest, variant, log) {
  const { peers, oldestTypeScript, skipLibCheck } = variant;
  mkdirSync(join(project, "src"), { recursive: true });
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({
      name: `smoke-${dir}`,
      private: true,
      type: "module",
      dependencies: {
        [manifest.name]: fileSpec(manifest.name),
        ...Object.fromEntries(
          Object.entries(peers).map(([name, range]) => [
            name,
            range === "workspace" ? fileSpec(name) : range,
          ]),
        ),
      },
      devDependencies: {
        "@types/node": "20.19.43",
        typescript: "7.0.2",
        "typescript-oldest": `npm:typescript@${oldestTypeScript}`,
      },
      overrides: artifactKitOverrides(manifest.name),
    }),
  );
  const tsconfig = skipLibCheck
    ? { ...TSCONFIG, compilerOptions: { ...TSCONFIG.compilerOptions, skipLibCheck } }
    : TSCONFIG;
  writeFileSync(join(project, "tsconfig.json"), JSON.stringify(tsconfig));
  return (
    (await step(
      "smoke program exists",
      () => cpSync(join(root, "scripts/smoke", `${dir}.ts`), join(project, "src/smoke.ts")),
      log,
    )) &&
    // --prefer-offline: the packages' dependencies overlap, and npm's cache already holds
    // most of them after the first projects (the README proofs install the same way).
    (await step(
      "npm install from the tarball",
      () => runAsync("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline"], project),
      log,
    )) &&
    (await step(
      `type-check with TypeScript ${oldestTypeScript}`,
      () =>
        runAsync(
          "node",
          ["node_modules/typescript-oldest/bin/tsc", "-p", ".", "--noEmit"],
          project,
        ),
      log,
    )) &&
    (await step(
      "type-check and emit with TypeScript 7",
      () => runAsync("node", ["node_modules/typescript/bin/tsc", "-p", "."], project),
      log,
    ))
  );
}

/** Each package's smoke projects, SMOKE_CONCURRENCY at a time, each one's lines printed together. */
const SMOKE_CONCURRENCY = 3;
const smokeProjects = (readmesOnly ? [] : selected).flatMap(({ dir, manifest }) =>
  (VARIANTS[dir] ?? DEFAULT_VARIANTS).map((variant) => ({ dir, manifest, variant })),
);
const proveSmokeProjects = async () => {
  for (let next = smokeProjects.shift(); next; next = smokeProjects.shift()) {
    const { dir, manifest, variant } = next;
    const log = [`${manifest.name}${variant.label ? ` with ${variant.label}` : ""}`];
    const project = join(work, `project-${dir}-${variant.nodes.join("-")}`);
    if (await prepareProject(project, dir, manifest, variant, log)) {
      for (const version of variant.nodes) {
        await step(
          `run on Node ${version}`,
          () => runAsync(nodeBinaries[version], ["dist/smoke.js"], project),
          log,
        );
      }
    }
    console.log(log.join("\n"));
    // Removed once proven, while the other projects install (see readme-snippets.mjs).
    await rm(project, { recursive: true, force: true });
  }
};
await Promise.all(Array.from({ length: SMOKE_CONCURRENCY }, proveSmokeProjects));

/** A README's install line as dependencies: our packages from their tarballs, others by range. */
function installLineDependencies(manifest, install) {
  return Object.fromEntries(
    install.map((name) => {
      if (tarballs[name]) return [name, fileSpec(name)];
      // A third-party package takes the range the package itself declares for it.
      const range = manifest.peerDependencies?.[name] ?? manifest.dependencies?.[name] ?? "*";
      return [name, range];
    }),
  );
}

console.log("README snippets, each from exactly its install line");
const readmes = [];
for (const { dir, manifest } of selected) {
  const path = join(root, "packages", dir, "README.md");
  if (await step(`${manifest.name} has a README`, () => existsSync(path) || fail("no README.md"))) {
    readmes.push({ dir, name: manifest.name, markdown: readFileSync(path, "utf8") });
  }
}
const manifests = Object.fromEntries(selected.map(({ dir, manifest }) => [dir, manifest]));
failures += await proveReadmeSnippets({
  work,
  readmes,
  dependencies: (dir, install) => installLineDependencies(manifests[dir], install),
  overrides: (dependencies) =>
    Object.fromEntries(
      Object.entries(artifactKitOverrides()).filter(([name]) => !(name in dependencies)),
    ),
  // The newest of the package's oldest TypeScripts (5.7 where a peer's declarations need it).
  oldestTypeScript: (dir) =>
    (VARIANTS[dir] ?? DEFAULT_VARIANTS)
      .map((variant) => variant.oldestTypeScript)
      .sort((a, b) => a.localeCompare(b, "en", { numeric: true }))
      .at(-1),
  // The snippets are checked, not the libraries' own declarations (see adk above).
  tsconfig: { ...TSCONFIG, compilerOptions: { ...TSCONFIG.compilerOptions, skipLibCheck: true } },
  env: programEnvironment(),
  concurrency: 3,
});

console.log("README shell sessions, in a scratch directory, from the packed tarballs");
failures += await proveReadmeSessions({
  work,
  readmes,
  dependencies: (dir, install) => installLineDependencies(manifests[dir], install),
  overrides: (dependencies) =>
    Object.fromEntries(
      Object.entries(artifactKitOverrides()).filter(([name]) => !(name in dependencies)),
    ),
  env: programEnvironment(),
});

function fail(message) {
  throw new Error(message);
}

if (!readmesOnly && selected.some(({ dir }) => dir === "core")) await proveThirdPartyExample();

/** The example adapter of conformance/, against the packed core. */
async function proveThirdPartyExample() {
  console.log("third-party adapter example (depends on the packed core only)");
  const example = join(work, "third-party-example");
  cpSync(join(root, "conformance/third-party-example"), example, { recursive: true });
  const exampleManifest = JSON.parse(readFileSync(join(example, "package.json"), "utf8"));
  exampleManifest.dependencies["@artifact-kit/core"] = fileSpec("@artifact-kit/core");
  writeFileSync(join(example, "package.json"), JSON.stringify(exampleManifest));
  (await step("npm install", () =>
    run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline"], example),
  )) &&
    (await step("type-check", () =>
      run("node", ["node_modules/typescript/bin/tsc", "-p", "."], example),
    )) &&
    (await step("conformance kit from its own vitest config", () =>
      run("npx", ["vitest", "run"], example),
    ));
}

rmSync(work, { recursive: true, force: true });
const seconds = ((Date.now() - started) / 1000).toFixed(0);
console.log(
  `smoke: ${failures === 0 ? "all passed" : `${failures} step(s) failed`} in ${seconds}s`,
);
process.exit(failures === 0 ? 0 : 1);
