import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/global-setup.ts"],
    // Azurite is one Node process on a 2-core machine: test files take turns.
    fileParallelism: false,
    // Limits for hangs, not for speed: a loaded CI machine runs the process races slowly.
    testTimeout: 300_000,
    hookTimeout: 120_000,
  },
});
