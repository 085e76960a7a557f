import type { ArtifactService } from "@artifact-kit/core";
import { describeArtifactService, describeRunStore } from "@artifact-kit/core/conformance";
import { FsArtifactService } from "@artifact-kit/fs";
import { fsSubjects } from "@artifact-kit/fs/testing";
import { MemoryArtifactService } from "@artifact-kit/memory";
import { memorySubjects } from "@artifact-kit/memory/testing";
import { InMemoryRunStore } from "@artifact-kit/run-store";
import { withRunStoreTelemetry, withTelemetry } from "../src/index.js";
import { TelemetryHarness } from "./support/sdk.js";

// The wrapper must not change behaviour: the whole kit runs through it, with the real SDK
// recording every span and metric (and names recorded, so that the attribute paths run too).

/** Each subject records into its own SDK, shut down with the subject. */
function traced(service: ArtifactService, harness = new TelemetryHarness()) {
  return withTelemetry(service, {
    ...harness.providers,
    recordNames: "digest",
    recordScopeIds: "plain",
  });
}

describeArtifactService("withTelemetry(memory)", {
  ...memorySubjects((options) => traced(new MemoryArtifactService(options))),
  numRuns: 30,
});

// fs's own subjects (reopen and corruption on its root), each service opened through the
// wrapper: what a durable store adds. The scale laws, which only count and page what the
// wrapper passes through, run over memory above (through fs they took 200 s of a loaded run).
describeArtifactService("withTelemetry(fs)", {
  ...fsSubjects({ open: async (options) => traced(await FsArtifactService.open(options)) }),
  numRuns: 10,
  omit: ["scale: "],
});

describeRunStore("withRunStoreTelemetry(InMemoryRunStore)", {
  create: async (bounds) => {
    const harness = new TelemetryHarness();
    const store = withRunStoreTelemetry(new InMemoryRunStore({ bounds }), {
      ...harness.providers,
      recordNames: "plain",
      recordScopeIds: "digest",
    });
    return { store, cleanup: () => harness.shutdown() };
  },
  numRuns: 30,
});
