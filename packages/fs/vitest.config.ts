import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // They need root and a FUSE mount: vitest.power-loss.config.ts runs them.
    exclude: ["test/power-loss/**"],
    // Real processes and real fsyncs: the crash and race suites take seconds, not milliseconds.
    // Three files at once (vitest's default on 2 cores is one): run one after another, the
    // crash trials, the kit and the mixed crash trials made this package the longest path
    // through `npm test`, 1,532 s of a loaded CI run (issue 32). Each works in roots of its own.
    maxWorkers: 3,
    testTimeout: 300_000,
    hookTimeout: 60_000,
  },
});
