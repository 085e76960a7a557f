import { execFile } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);

// README snippets as the pick-and-install proof checks them. In a package's README:
// - a ```ts block is a program: type-checked, then run;
// - a ```ts check block is type-checked only (its first line says why it cannot run here,
//   e.g. it needs real cloud credentials or runs inside a test runner);
// - a ```sh block with an `npm install` line is the install line of every snippet after it,
//   until the next one: the snippet's project installs exactly those packages;
// - a ```sh session block is part of the README's shell session (see readme-sessions.mjs).

export const FENCE = /^```([^\n`]*)\n([\s\S]*?)^```[ \t]*$/gm;

/** Packages named by the `npm install` lines of one ```sh block, flags left out. */
export function installedPackages(shell) {
  const packages = [];
  for (const line of shell.split("\n")) {
    const match = /^\s*npm install\b(.*)$/.exec(line.replace(/\s#.*$/, ""));
    if (!match) continue;
    packages.push(...match[1].split(/\s+/).filter((word) => word !== "" && !word.startsWith("-")));
  }
  return packages;
}

/** The packages a snippet imports (`node:` built-ins left out), by package name. */
export function importedPackages(code) {
  const names = new Set();
  for (const [, from, bare] of code.matchAll(/\bfrom\s+"([^"]+)"|\bimport\s+"([^"]+)"/g)) {
    const specifier = from ?? bare;
    if (specifier === undefined || specifier.startsWith("node:") || specifier.startsWith(".")) {
      continue;
    }
    const parts = specifier.split("/");
    names.add(specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]);
  }
  return [...names];
}

/**
 * The README's snippets in order: { index, code, run, install } where `install` is the
 * package list of the install line in force (undefined when the README has none before it).
 */
export function readmeSnippets(markdown) {
  const snippets = [];
  let install;
  for (const match of markdown.matchAll(FENCE)) {
    const [language, ...flags] = match[1].trim().split(/\s+/);
    const body = match[2];
    if (language === "sh") {
      const packages = installedPackages(body);
      if (packages.length > 0) install = packages;
    } else if (language === "ts") {
      snippets.push({
        index: snippets.length + 1,
        code: body,
        run: !flags.includes("check"),
        install,
      });
    }
  }
  return snippets;
}

/**
 * One fresh project per (README, install line in force): it installs exactly that line,
 * every snippet under it is type-checked, and each runnable one run in an empty directory of
 * its own. Projects are proven `concurrency` at a time (installs mostly wait on the
 * network), each one's lines printed together when it ends. Returns the failed steps.
 *
 * `context`: { work, readmes: [{ dir, name, markdown }], dependencies(dir, install),
 * overrides(dependencies), oldestTypeScript(dir), tsconfig, env, concurrency }.
 */
export async function proveReadmeSnippets(context) {
  const projects = context.readmes.flatMap((readme) => projectsOf(readme));
  let failures = 0;
  let next = 0;
  const worker = async () => {
    while (next < projects.length) {
      const project = projects[next++];
      const log = [project.title];
      // Awaited first: `failures += await ...` would read the count before the await and
      // lose what other workers added meanwhile.
      const failed = await proveProject(context, project, log);
      failures += failed;
      // Removed once proven, while the other workers install: the proof's projects add up to
      // 2 GB, and removing them all at its end took 5 minutes of a loaded CI run's tail.
      await rm(projectDir(context, project), { recursive: true, force: true });
      console.log(log.join("\n"));
    }
  };
  await Promise.all(Array.from({ length: context.concurrency }, worker));
  return failures;
}

/** Where a project of README snippets is made. */
function projectDir(context, { dir, snippets }) {
  return join(context.work, `readme-${dir}-${snippets[0].index}`);
}

function projectsOf({ dir, name, markdown }) {
  const groups = new Map();
  for (const snippet of readmeSnippets(markdown)) {
    const key = JSON.stringify(snippet.install ?? null);
    groups.set(key, [...(groups.get(key) ?? []), snippet]);
  }
  return [...groups].map(([key, snippets]) => ({
    dir,
    install: JSON.parse(key),
    snippets,
    title: `${name} README snippets ${snippets.map((snippet) => snippet.index).join(", ")}`,
  }));
}

async function proveProject(context, { dir, install, snippets }, log) {
  let failures = 0;
  const step = async (label, action) => {
    const started = Date.now();
    try {
      const said = String((await action()) ?? "").trim();
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      log.push(`  ${label} … ok (${seconds}s)${said ? `: ${said}` : ""}`);
      return true;
    } catch (error) {
      failures += 1;
      log.push(
        `  ${label} … FAILED`,
        String(error.stdout ?? ""),
        String(error.stderr ?? error.message),
      );
      return false;
    }
  };
  if (install === null) {
    await step("an npm install line precedes them", () => {
      throw new Error("no ```sh block with `npm install` before these snippets");
    });
    return failures;
  }
  const project = projectDir(context, { dir, snippets });
  mkdirSync(join(project, "src"), { recursive: true });
  const dependencies = context.dependencies(dir, install);
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({
      name: `readme-${dir}`,
      private: true,
      type: "module",
      dependencies,
      devDependencies: {
        "@types/node": "20.19.43",
        typescript: "7.0.2",
        "typescript-oldest": `npm:typescript@${context.oldestTypeScript(dir)}`,
      },
      overrides: context.overrides(dependencies),
    }),
  );
  writeFileSync(join(project, "tsconfig.json"), JSON.stringify(context.tsconfig));
  for (const { index, code } of snippets) {
    writeFileSync(join(project, "src", `readme-${index}.ts`), code);
  }
  const run = async (command, args, cwd) =>
    (await execFileAsync(command, args, { cwd, env: context.env, encoding: "utf8" })).stdout;
  const ready =
    (await step("they import only what the install line installs", () => {
      // npm hoists dependencies' dependencies, so the compiler alone would not catch this.
      const omitted = snippets.flatMap(({ index, code }) =>
        importedPackages(code)
          .filter((name) => !install.includes(name))
          .map((name) => `snippet ${index} imports ${name}`),
      );
      if (omitted.length > 0) throw new Error(omitted.join("\n"));
    })) &&
    // The package installs before this fetched everything: the cache answers without asking.
    (await step(`npm install ${install.join(" ")}`, () =>
      run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline"], project),
    )) &&
    // The oldest TypeScript the package claims: a snippet is what a user on it copies.
    (await step(`type-check with TypeScript ${context.oldestTypeScript(dir)}`, () =>
      run("node", ["node_modules/typescript-oldest/bin/tsc", "-p", ".", "--noEmit"], project),
    )) &&
    (await step("type-check and emit with TypeScript 7", () =>
      run("node", ["node_modules/typescript/bin/tsc", "-p", "."], project),
    ));
  if (!ready) return failures;
  for (const { index } of snippets.filter((snippet) => snippet.run)) {
    // Each in an empty working directory of its own: no snippet leans on files another made.
    const cwd = join(project, `run-${index}`);
    mkdirSync(cwd);
    await step(`run snippet ${index}`, () =>
      run("node", [join(project, "dist", `readme-${index}.js`)], cwd),
    );
  }
  return failures;
}
