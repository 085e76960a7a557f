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
    const samples = fc.sample(artifactCommands({ reopen: false }), { numRuns: SAMPLES, seed: 14 });
    let multiStep = 0;
    let overOneKiB = 0;
    let atLeastTwenty = 0;
    const replayed = { same: 0, differing: 0, deleted: 0 };
    for (const commands of samples) {
      const model = new ReferenceModel();
      const service = new MemoryArtifactService();
      const real: ServiceHolder = { service, subject: { service } };
      await fc.asyncModelRun(() => ({ model, real }), commands);
      if (model.coverage.multiStep) multiStep += 1;
      if (model.coverage.largestPut > 1024) overOneKiB += 1;
      if ([...commands].length >= 20) atLeastTwenty += 1;
      for (const kind of ["same", "differing", "deleted"] as const) {
        if (model.coverage.keyReplays[kind] > 0) replayed[kind] += 1;
      }
    }
    const measured = {
      putDeleteAndReadWithTwoLive: share(multiStep),
      dataOverOneKiB: share(overOneKiB),
      twentyCommandsOrMore: share(atLeastTwenty),
      retryWithTheSamePayload: share(replayed.same),
      retryWithAnotherPayload: share(replayed.differing),
      retryOfADeletedVersion: share(replayed.deleted),
    };
    console.info("artifact generator coverage", measured);
    expect(measured.putDeleteAndReadWithTwoLive, JSON.stringify(measured)).toBeGreaterThanOrEqual(
      0.5,
    );
    expect(measured.dataOverOneKiB, JSON.stringify(measured)).toBeGreaterThanOrEqual(0.2);
    expect(measured.twentyCommandsOrMore, JSON.stringify(measured)).toBeGreaterThanOrEqual(0.5);
    // Each answer to a put under a bound key: the bound record, invalid_argument, not_found.
    expect(measured.retryWithTheSamePayload, JSON.stringify(measured)).toBeGreaterThanOrEqual(0.2);
    expect(measured.retryWithAnotherPayload, JSON.stringify(measured)).toBeGreaterThanOrEqual(0.2);
    expect(measured.retryOfADeletedVersion, JSON.stringify(measured)).toBeGreaterThanOrEqual(0.2);
  });

  it("run-store sequences: fill a bound, free room with remove or clear, then write again", async () => {
    const samples = fc.sample(runStoreCommands(false), { numRuns: SAMPLES, seed: 14 });
    let refilled = 0;
    const byBound = new Map<string, number>();
    for (const commands of samples) {
      const model = new RunStoreModel(SMALL_BOUNDS);
      const store = new InMemoryRunStore({ bounds: SMALL_BOUNDS });
      await fc.asyncModelRun(() => ({ model, real: { store, subject: { store } } }), commands);
      if (model.coverage.refilled.size > 0) refilled += 1;
      for (const limit of model.coverage.refilled)
        byBound.set(limit, (byBound.get(limit) ?? 0) + 1);
    }
    const perBound = Object.fromEntries([...byBound].map(([limit, hits]) => [limit, share(hits)]));
    console.info("run-store generator coverage", {
      filledFreedAndWrittenAgain: share(refilled),
      perBound,
    });
    expect(share(refilled)).toBeGreaterThanOrEqual(0.5);
    // Each bound that fills up is filled, freed and written again in some sequences.
    for (const limit of [
      "max_artifacts_per_run",
      "max_bytes_per_run",
      "max_runs",
      "max_total_bytes",
    ]) {
      expect(perBound[limit] ?? 0, limit).toBeGreaterThanOrEqual(0.05);
    }
  });
});
