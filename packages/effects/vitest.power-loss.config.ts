import { defineConfig } from "vitest/config";

// The power-loss trials mount a FUSE filesystem (root, /dev/fuse): their own run, in .ci/run
// after packages/fs/scripts/crashfs.sh, not part of `vitest run`.
export default defineConfig({
  test: {
    include: ["test/power-loss/**/*.test.ts"],
    testTimeout: 300_000,
    hookTimeout: 120_000,
  },
});
