import { existsSync, readdirSync, readFileSync } from "node:fs";
import { extname } from "node:path";
import { fileURLToPath } from "node:url";

// The console's files, built by scripts/build-console.mjs into dist/console and shipped in
// the package: read once when the server starts and served from memory, by exact file name
// only (no path from a request ever reaches the file system).

const TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
};

/**
 * The console page's policy: its own scripts and styles only (no inline script, no eval),
 * requests to this server only, no framing by another page. Artifact bytes it shows come
 * from this server and carry their own sandboxing policy.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' blob: data:",
  "media-src 'self' blob:",
  "connect-src 'self'",
  "frame-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

export interface ConsoleAsset {
  body: Uint8Array;
  type: string;
}

/** dist/console beside the compiled server, or beside the sources when run from them. */
function consoleDirectory(): string | undefined {
  for (const candidate of ["../console/", "../../dist/console/"]) {
    const path = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(path)) return path;
  }
  return undefined;
}

export function loadConsoleAssets(): ReadonlyMap<string, ConsoleAsset> {
  const directory = consoleDirectory();
  const assets = new Map<string, ConsoleAsset>();
  if (directory === undefined) return assets;
  for (const file of readdirSync(directory)) {
    const type = TYPES[extname(file)];
    if (type !== undefined) assets.set(file, { body: readFileSync(`${directory}${file}`), type });
  }
  return assets;
}
