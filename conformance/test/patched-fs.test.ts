import { fsSubjects } from "@artifact-kit/fs/testing";
import { describe, it } from "vitest";
import { buildFsMutant } from "../mutants/fs/build.js";
import { FS_MUTANTS } from "../mutants/fs/patches.js";
import { MATRIX_RUNS } from "./adapters.js";
import { expectRejected, PATCHED_COPY_LIMIT_MS } from "./rejects.js";

// Patched copies of the real fs adapter, each broken in exactly one way, must each fail a
// check at the matrix's settings (see ./rejects.ts). The postgres and object-store copies are
// in ./patched-copies.test.ts, and the memory mutants in ./mutants.test.ts: files of their own,
// so that vitest runs them side by side (one file of all the copies took 938 s of a loaded
// CI run, one copy after another; issue 32).

describe("the conformance kit rejects every patched copy of the fs adapter", () => {
  // A patched copy runs the durable kit up to the first law that fails, which may be one of the
  // last: 30 s on a quiet machine, over 300 s in a CI run at a load of 25. The limit is only
  // for hangs (PATCHED_COPY_LIMIT_MS, well above the worst seen), not a bound on speed.
  for (const spec of FS_MUTANTS) {
    it(
      `rejects the patched fs copy that ${spec.bug}`,
      async () => {
        const Service = await buildFsMutant(spec);
        await expectRejected(
          `fs ${spec.slug}`,
          { ...fsSubjects(Service), numRuns: MATRIX_RUNS.fs },
          false,
          spec.group,
        );
      },
      PATCHED_COPY_LIMIT_MS,
    );
  }
});
