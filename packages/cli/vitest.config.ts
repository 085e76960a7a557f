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
    // Limits for hangs, not speed: a test spawns the CLI several times, and each spawn loads
    // Node and the backend's SDK, which on a loaded shared machine takes seconds.
    testTimeout: 300_000,
    hookTimeout: 600_000,
  },
});
