import { describeArtifactService } from "@artifact-kit/core/conformance";
import { fsSubjects } from "../src/testing.js";

// Every subject lives in its own directory under os.tmpdir(); reopen is a new instance on
// the same root, corrupt flips a byte of a data file, cleanup removes the directory.
describeArtifactService("fs", { ...fsSubjects(), numRuns: 50 });
// Without fsync: the same laws, reopen included (a reopen is not a power cut).
describeArtifactService("fs (durability: process)", {
  ...fsSubjects(undefined, "process"),
  numRuns: 50,
});
