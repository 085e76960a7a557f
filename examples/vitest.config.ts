import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The postgres and s3 packages' own server setups: each uses the server named by
    // DATABASE_URL or S3_ENDPOINT, or starts a throwaway one and stops it afterwards.
    globalSetup: [
      "../packages/postgres/test/support/global-setup.ts",
      "../packages/s3/test/support/global-setup.ts",
    ],
    // Each run is several processes on one server pair of a 2-core machine: one at a time.
    fileParallelism: false,
    testTimeout: 600_000,
    hookTimeout: 600_000,
  },
});
