import { execFile, spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { promisify } from "node:util";
import { FENCE, installedPackages } from "./readme-snippets.mjs";

const execFileAsync = promisify(execFile);

// A README's shell session, as the pick-and-install proof runs it: its ```sh session blocks,
// in order, as one bash script (a variable one block sets is there for the next, a server
// one starts in the background serves the next's `curl`), in a scratch directory, with the
// packages their `npm install` lines name installed from the packed tarballs (a global
// install, `-g`, is installed into the scratch project, its bins first on PATH). The
// `npm install` lines themselves are not run. A session should stop what it starts, as its
// reader would; whatever is left in its process group is killed when it ends, and it fails
// after SESSION_TIMEOUT_MS.

const SESSION_TIMEOUT_MS = 180_000;

/** The README's session blocks in order, and every package their install lines name. */
export function readmeSession(markdown) {
  const blocks = [];
  const install = new Set();
  for (const match of markdown.matchAll(FENCE)) {
    const [language, ...flags] = match[1].trim().split(/\s+/);
    if (language !== "sh" || !flags.includes("session")) continue;
    for (const name of installedPackages(match[2])) install.add(name);
    blocks.push(match[2]);
  }
  return { blocks, install: [...install] };
}

/** The script the blocks make: strict (as a reader's terminal stops at a failure), no installs. */
export function sessionScript(blocks) {
  const body = blocks
    .map((block) =>
      block
        .split("\n")
        .filter((line) => !/^\s*npm install\b/.test(line))
        .join("\n"),
    )
    .join("\n");
  return `set -euo pipefail\n${body}\n`;
}

/**
 * Runs the session of each README that has one, one README at a time (sessions may listen
 * on fixed ports, as a reader's would). `context`: { work, readmes, dependencies(dir,
 * install), overrides(dependencies), env }. Returns the failed steps.
 */
export async function proveReadmeSessions(context) {
  let failures = 0;
  for (const { dir, name, markdown } of context.readmes) {
    const { blocks, install } = readmeSession(markdown);
    if (blocks.length === 0) continue;
    const log = [`${name} README shell session (${blocks.length} blocks)`];
    failures += await proveSession(context, dir, install, blocks, log);
    console.log(log.join("\n"));
  }
  return failures;
}

async function proveSession(context, dir, install, blocks, log) {
  const project = join(context.work, `session-${dir}`);
  const cwd = join(project, "scratch");
  mkdirSync(cwd, { recursive: true });
  const dependencies = context.dependencies(dir, install);
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({
      name: `session-${dir}`,
      private: true,
      type: "module",
      dependencies,
      overrides: context.overrides(dependencies),
    }),
  );
  writeFileSync(join(project, "session.sh"), sessionScript(blocks));
  const env = {
    ...context.env,
    PATH: `${join(project, "node_modules", ".bin")}${delimiter}${context.env.PATH ?? ""}`,
  };
  const steps = [
    [
      `npm install ${install.join(" ")}`,
      () =>
        execFileAsync("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline"], {
          cwd: project,
          env: context.env,
        }),
    ],
    [
      "run the blocks in order, as one bash session",
      () => runSession(join(project, "session.sh"), cwd, env),
    ],
  ];
  for (const [label, action] of steps) {
    const started = Date.now();
    try {
      await action();
      log.push(`  ${label} … ok (${((Date.now() - started) / 1000).toFixed(1)}s)`);
    } catch (error) {
      log.push(
        `  ${label} … FAILED`,
        String(error.stdout ?? ""),
        String(error.stderr ?? error.message),
      );
      return 1;
    }
  }
  return 0;
}

/**
 * Runs the script in a process group of its own, and ends the group when the script ends or
 * times out: a server a failed session started in the background must not outlive it.
 */
function runSession(script, cwd, env) {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", [script], { cwd, env, detached: true });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const endGroup = () => {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // the group is gone already
      }
    };
    const timer = setTimeout(() => {
      stderr += `\nthe session ran past ${SESSION_TIMEOUT_MS / 1000}s and was stopped`;
      endGroup();
    }, SESSION_TIMEOUT_MS);
    // On exit, not close: a background process left running holds the output pipes open.
    child.on("exit", () => {
      clearTimeout(timer);
      endGroup();
    });
    child.on("close", (code, signal) => {
      if (code === 0) resolve({ stdout, stderr });
      else reject(Object.assign(new Error(`bash exited ${code ?? signal}`), { stdout, stderr }));
    });
  });
}
