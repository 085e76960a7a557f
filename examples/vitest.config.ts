import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/global-setup.ts"],
    // Each run is several processes on one server pair of a 2-core machine: one at a time.
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 600_000,
  },
});
