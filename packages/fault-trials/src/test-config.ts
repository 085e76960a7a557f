import type { TestUserConfig } from "vitest/config";

/**
 * The vitest settings of an object-store adapter's package (s3, gcs, azure), whose every test
 * talks to one emulator that its test/support/global-setup.ts finds or starts.
 */
export const objectStoreTestConfig = {
  include: ["test/**/*.test.ts"],
  globalSetup: ["test/support/global-setup.ts"],
  // The emulator is one process on a 2-core machine: test files take turns.
  fileParallelism: false,
  // Limits for hangs, not for speed: a loaded CI machine runs the process races slowly.
  testTimeout: 300_000,
  hookTimeout: 120_000,
} satisfies TestUserConfig;
