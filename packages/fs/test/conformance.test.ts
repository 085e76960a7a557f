import { describeArtifactService } from "@artifact-kit/core/conformance";
import { fsSubjects } from "../src/testing.js";

// Every subject lives in its own directory under os.tmpdir(); reopen is a new instance on
// the same root, corrupt flips a byte of a payload, cleanup removes the directory.
// At the matrix's setting for fs (conformance/test/adapters.ts): at 50 it was 811 s of a loaded
// CI run, run beside the crash trials (issue 32).
describeArtifactService("fs", { ...fsSubjects(), numRuns: 30 });
// Without fsync: the same laws, reopen included (a reopen is not a power cut). The mode only
// skips the fsync calls (io.ts), so the same code runs: 10 runs a property prove that no law
// rests on an fsync having run, at a fifth of the CPU of 50 (issue 32).
describeArtifactService("fs (durability: process)", {
  ...fsSubjects(undefined, "process"),
  numRuns: 10,
});
