import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // They need root and a FUSE mount: vitest.power-loss.config.ts runs them.
    exclude: ["test/power-loss/**"],
    // Real processes and real fsyncs: the crash and race suites take seconds, not milliseconds.
    testTimeout: 300_000,
    hookTimeout: 60_000,
  },
});
