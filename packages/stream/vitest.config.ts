import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // A shared CI machine may run these at a tenth of their quiet speed: the limits catch hangs,
    // not slowness (vitest's own defaults, 5 s a test and 10 s a hook, fail a busy run).
    testTimeout: 300_000,
    hookTimeout: 120_000,
  },
});
