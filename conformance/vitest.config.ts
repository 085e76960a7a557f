import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The gcs package's own emulator setup: it uses STORAGE_EMULATOR_HOST when .ci/run
    // started one, or starts fake-gcs-server itself; no emulator fails the run.
    // The same for PostgreSQL (DATABASE_URL, or a throwaway server of the postgres package)
    // and for S3 (S3_ENDPOINT, or moto started by the s3 package), and for Azure
    // (AZURE_STORAGE_CONNECTION_STRING, or Azurite started by the azure package).
    globalSetup: [
      "../packages/gcs/test/support/global-setup.ts",
      "../packages/postgres/test/support/global-setup.ts",
      "../packages/s3/test/support/global-setup.ts",
      "../packages/azure/test/support/global-setup.ts",
    ],
    // Four files at once, whatever the core count (vitest's default on two cores is one): the
    // matrix, the memory mutants and the fs and the postgres patched copies wait much on
    // emulators, child processes and the disk, and one after another they were the longest
    // path through `npm test` (the mutants alone took 1,404 of its 1,535 s in a CI run; the
    // patched copies, in a file of their own, still over 1,200 s of a loaded one; issue 32).
    maxWorkers: 4,
    testTimeout: 300_000,
    hookTimeout: 600_000,
  },
});
