import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Real processes and real fsyncs: the crash and race suites take seconds, not milliseconds.
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
