import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The gcs package's own emulator setup: it uses STORAGE_EMULATOR_HOST when .ci/run
    // started one, or starts fake-gcs-server itself; no emulator fails the run.
    globalSetup: ["../gcs/test/support/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 600_000,
  },
});
