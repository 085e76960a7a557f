import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describeArtifactService } from "../src/conformance/index.js";
import type { ArtifactService } from "../src/index.js";

// Issue 33.7: the README's example adapter must pass the kit as written. This file runs the
// kit on that very block: taken from the README, its imports pointed at this package's
// source, and imported (its own demo lines run once, as a reader's would).

const README = new URL("../README.md", import.meta.url);
const sourceOf = (path: string) => fileURLToPath(new URL(path, import.meta.url));

async function readmeAdapter(): Promise<(bounds?: object) => ArtifactService> {
  const markdown = await readFile(README, "utf8");
  const block = [...markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)]
    .map((match) => match[1] as string)
    .find((code) => code.includes("export function toyArtifactService"));
  if (block === undefined) throw new Error("the README has no toyArtifactService block");
  const code = block
    .replaceAll('"@artifact-kit/core/adapter"', JSON.stringify(sourceOf("../src/adapter/index.ts")))
    .replaceAll('"@artifact-kit/core"', JSON.stringify(sourceOf("../src/index.ts")));
  const file = join(await mkdtemp(join(tmpdir(), "core-readme-")), "adapter.ts");
  await writeFile(file, code);
  const module = (await import(/* @vite-ignore */ file)) as {
    toyArtifactService: (bounds?: object) => ArtifactService;
  };
  return module.toyArtifactService;
}

const toyArtifactService = await readmeAdapter();

describeArtifactService("core README example adapter", {
  create: async () => ({ service: toyArtifactService() }),
  createBounded: async () => ({
    service: toyArtifactService({ maxArtifactBytes: 1024, maxPageLimit: 20 }),
  }),
  numRuns: 50,
});
