import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The gcs package's own emulator setup: it uses STORAGE_EMULATOR_HOST when .ci/run
    // started one, or starts fake-gcs-server itself; no emulator fails the run.
    // The same for PostgreSQL: DATABASE_URL, or a throwaway server of the postgres package.
    globalSetup: [
      "../packages/gcs/test/support/global-setup.ts",
      "../packages/postgres/test/support/global-setup.ts",
    ],
    testTimeout: 300_000,
    hookTimeout: 600_000,
  },
});
