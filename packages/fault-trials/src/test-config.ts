import type { TestUserConfig } from "vitest/config";

/**
 * The vitest settings of an object-store adapter's package (s3, gcs, azure), whose every test
 * talks to one emulator that its test/support/global-setup.ts finds or starts.
 */
export const objectStoreTestConfig = {
  include: ["test/**/*.test.ts"],
  globalSetup: ["test/support/global-setup.ts"],
  // Two test files at once (vitest's default on 2 cores is one): the kit's file alone took
  // 550 to 800 s of a loaded CI run, and the other files, run after it, made the package the
  // longest path through `npm test` (issue 32). Each file uses buckets and prefixes of its own
  // on the shared emulator, or an emulator of its own (the server-kill trials).
  maxWorkers: 2,
  // Limits for hangs, not for speed: a loaded CI machine runs the process races slowly.
  testTimeout: 300_000,
  hookTimeout: 120_000,
} satisfies TestUserConfig;
