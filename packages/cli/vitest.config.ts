import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The adapters' own server setups: each uses the server .ci/run started (from
    // STORAGE_EMULATOR_HOST, DATABASE_URL, S3_ENDPOINT, AZURE_STORAGE_CONNECTION_STRING) or
    // starts its own; none fails the run.
    globalSetup: [
      "../gcs/test/support/global-setup.ts",
      "../postgres/test/support/global-setup.ts",
      "../s3/test/support/global-setup.ts",
      "../azure/test/support/global-setup.ts",
    ],
    testTimeout: 60_000,
    hookTimeout: 600_000,
  },
});
