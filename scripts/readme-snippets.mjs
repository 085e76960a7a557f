// README snippets as the pick-and-install proof checks them. In a package's README:
// - a ```ts block is a program: type-checked, then run;
// - a ```ts check block is type-checked only (its first line says why it cannot run here,
//   e.g. it needs real cloud credentials or runs inside a test runner);
// - a ```sh block with an `npm install` line is the install line of every snippet after it,
//   until the next one: the snippet's project installs exactly those packages.

const FENCE = /^```([^\n`]*)\n([\s\S]*?)^```[ \t]*$/gm;

/** Packages named by the `npm install` lines of one ```sh block, flags left out. */
function installedPackages(shell) {
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
