import * as stream from "@artifact-kit/stream";
import { describe, expect, it } from "vitest";
import { firstFailure } from "../mutants/first-failure.js";
import { importPatchedCopy } from "../mutants/patched/build.js";
import { BUFFERING_LAWS, type StreamModule } from "../mutants/stream/laws.js";
import { STREAM_MUTANTS } from "../mutants/stream/patches.js";

// The stream package's opt-in buffering against its own laws (mutants/stream/laws.ts): the
// package passes every law, and each patched copy of its buffered.ts fails one.

/** Two forced collections per measure: slow on a loaded machine, so never timed. */
const TIMEOUT_MS = 120_000;

describe("the buffering laws", () => {
  for (const law of BUFFERING_LAWS) {
    it(`pass the stream package: ${law.name}`, () => law.run(stream), TIMEOUT_MS);
  }

  for (const spec of STREAM_MUTANTS) {
    it(
      `reject the mutant where ${spec.bug}`,
      async () => {
        const module = (await importPatchedCopy(
          "stream",
          spec,
          "index.ts",
          "conformance/mutants/stream/patches.ts",
        )) as StreamModule;
        const failure = await firstFailure(
          BUFFERING_LAWS.map((law) => ({ name: law.name, run: () => law.run(module) })),
        );
        expect(failure, `no law failed for ${spec.slug}`).toBeDefined();
        console.info(`${spec.slug} -> ${failure?.name}`);
      },
      TIMEOUT_MS,
    );
  }
});
