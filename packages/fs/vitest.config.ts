import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The files that take longest, longest first. Without a record of earlier runs (a clean
 * clone in CI) vitest starts the largest files first, and the kit's file is the smallest:
 * it started last, after the rest had run, and alone made the tail of this package's run
 * (620 s of 1,114 s in a loaded CI run). Started first, beside the two crash suites, the
 * three longest take a worker each and the rest fill in around them.
 */
const LONGEST_FIRST = [
  "test/crash.test.ts",
  "test/conformance.test.ts",
  "test/mixed-crash.test.ts",
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const at = LONGEST_FIRST.findIndex((path) => file.moduleId.endsWith(path));
      return at === -1 ? LONGEST_FIRST.length : at;
    };
    // A stable sort: the rest keep the order vitest gave them.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // They need root and a FUSE mount: vitest.power-loss.config.ts runs them.
    exclude: ["test/power-loss/**"],
    // Real processes and real fsyncs: the crash and race suites take seconds, not milliseconds.
    // Three files at once (vitest's default on 2 cores is one): run one after another, the
    // crash trials, the kit and the mixed crash trials made this package the longest path
    // through `npm test`, 1,532 s of a loaded CI run (issue 32). Each works in roots of its own.
    maxWorkers: 3,
    sequence: { sequencer: LongestFirst },
    testTimeout: 300_000,
    hookTimeout: 60_000,
  },
});
