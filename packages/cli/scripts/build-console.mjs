// Bundles the web console (console/src, Preact) with its libraries into dist/console: one
// script, one stylesheet and the page, shipped inside the package and served by
// `artifact-kit serve`. Nothing is fetched at run time, so the console works offline.
import { copyFile, mkdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("../", import.meta.url));
const out = `${root}dist/console`;
await mkdir(out, { recursive: true });
await build({
  entryPoints: { app: `${root}console/src/main.tsx` },
  bundle: true,
  format: "esm",
  target: "es2022",
  minify: true,
  sourcemap: false,
  jsx: "automatic",
  jsxImportSource: "preact",
  outdir: out,
  logLevel: "warning",
  legalComments: "linked",
});
await copyFile(`${root}console/index.html`, `${out}/index.html`);
