import { describeArtifactService } from "@artifact-kit/core/conformance";
import { memorySubjects } from "./support/subjects.js";

// The kit's fault families over a bucket in memory whose requests go through the fault
// injector, once per format: a lost reply here is never retried, so one fault is what a
// client that retries once (s3, azure) meets as two; the "repeated faults" law arms two and three.
for (const dialect of ["trailer", "header"] as const) {
  describeArtifactService(`object-store, ${dialect} format (memory bucket), with faults`, {
    ...memorySubjects(dialect, { faults: true }),
    numRuns: 10,
    only: "faults: ",
  });
}
