import { configDefaults, defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Run on their own (vitest.power-loss.config.ts): they need root and /dev/fuse.
    exclude: [...configDefaults.exclude, "test/power-loss/**"],
    // Two files at once (vitest's default on 2 cores is one): the crash trials alone took 418 s
    // of a loaded CI run, the fs journal's 184 s after them (issue 32).
    maxWorkers: 2,
    testTimeout: 300_000,
    hookTimeout: 60_000,
  },
});
