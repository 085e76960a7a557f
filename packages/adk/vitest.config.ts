import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  // The README's example imports this package by name; the tests run it from source.
  resolve: {
    alias: { "@artifact-kit/adk": fileURLToPath(new URL("./src/index.ts", import.meta.url)) },
  },
  test: {
    include: ["test/**/*.test.ts"],
    // A shared CI machine may run these at a tenth of their quiet speed: the limits catch hangs,
    // not slowness (vitest's own defaults, 5 s a test and 10 s a hook, fail a busy run).
    testTimeout: 300_000,
    hookTimeout: 120_000,
    globalSetup: ["test/support/temp-parent.ts"],
    // Every file imports @google/adk; one copy per worker instead of one per file keeps the
    // suite fast. No file keeps state at module level that another could see.
    isolate: false,
  },
});
