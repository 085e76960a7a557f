import {
  artifactCommands,
  ReferenceModel,
  RunStoreModel,
  runStoreCommands,
  type ServiceHolder,
  SMALL_BOUNDS,
} from "@artifact-kit/core/conformance";
import { MemoryArtifactService } from "@artifact-kit/memory";
import { InMemoryRunStore } from "@artifact-kit/run-store";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

// The kit's generators are measured, not assumed: sequences sampled exactly as the model
// check draws them run against the memory adapter and the in-memory run store, and the
// reference model reports what each sequence did to each artifact.

const SAMPLES = 100;
const share = (hits: number) => hits / SAMPLES;

describe("the kit's command generators find multi-step bugs", () => {
  it("artifact sequences: long, concentrated on a few artifacts, with data over 1 KiB", async () => {
    const samples = fc.sample(artifactCommands(false), { numRuns: SAMPLES, seed: 14 });
    let multiStep = 0;
    let overOneKiB = 0;
    let atLeastTwenty = 0;
    for (const commands of samples) {
      const model = new ReferenceModel();
      const service = new MemoryArtifactService();
      const real: ServiceHolder = { service, subject: { service } };
      await fc.asyncModelRun(() => ({ model, real }), commands);
      if (model.coverage.multiStep) multiStep += 1;
      if (model.coverage.largestPut > 1024) overOneKiB += 1;
      if ([...commands].length >= 20) atLeastTwenty += 1;
    }
    const measured = {
      putDeleteAndReadWithTwoLive: share(multiStep),
      dataOverOneKiB: share(overOneKiB),
      twentyCommandsOrMore: share(atLeastTwenty),
    };
    console.info("artifact generator coverage", measured);
    expect(measured.putDeleteAndReadWithTwoLive, JSON.stringify(measured)).toBeGreaterThanOrEqual(
      0.5,
    );
    expect(measured.dataOverOneKiB, JSON.stringify(measured)).toBeGreaterThanOrEqual(0.2);
    expect(measured.twentyCommandsOrMore, JSON.stringify(measured)).toBeGreaterThanOrEqual(0.5);
  });

  it("run-store sequences: fill a bound, free room with remove or clear, then write again", async () => {
    const samples = fc.sample(runStoreCommands(false), { numRuns: SAMPLES, seed: 14 });
    let refilled = 0;
    for (const commands of samples) {
      const model = new RunStoreModel(SMALL_BOUNDS);
      const store = new InMemoryRunStore({ bounds: SMALL_BOUNDS });
      await fc.asyncModelRun(() => ({ model, real: { store, subject: { store } } }), commands);
      if (model.coverage.refilled) refilled += 1;
    }
    console.info("run-store generator coverage", { filledFreedAndWrittenAgain: share(refilled) });
    expect(share(refilled)).toBeGreaterThanOrEqual(0.5);
  });
});
