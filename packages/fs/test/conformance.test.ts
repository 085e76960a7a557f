import { describeArtifactService } from "@artifact-kit/core/conformance";
import { fsSubjects } from "../src/testing.js";

// Every subject lives in its own directory under os.tmpdir(); reopen is a new instance on
// the same root, corrupt flips a byte of a data file, cleanup removes the directory.
describeArtifactService("fs", { ...fsSubjects(), numRuns: 50 });
